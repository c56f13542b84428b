//! Rules of free texts, digit strings and dates as the request carries them: the shared checks of validation
//! (`core/src/validate/v.rs`), one rule per check whatever the field (the path names the field). Catalogs:
//! `core/locales/<lang>/text.ftl`.

rules! {
    /// A required text is empty or only spaces.
    text_blank / TEXT_BLANK = "text.blank" => REQUIRED {};
    /// A text starts or ends with spaces, which SIFEN rejects.
    text_spaces / TEXT_SPACES = "text.spaces" => INVALID_FORMAT {};
    /// A text has fewer or more characters than its field allows.
    text_length / TEXT_LENGTH = "text.length" => INVALID_FORMAT { min: Int = "4", max: Int = "255", got: Int = "2" };
    /// A text contains control characters (tabs, line breaks).
    text_control / TEXT_CONTROL = "text.control" => INVALID_FORMAT {};
    /// A text contains U+FFFE or U+FFFF, which XML does not allow.
    text_noncharacter / TEXT_NONCHARACTER = "text.noncharacter" => INVALID_FORMAT {};
    /// A field of digits is not between `min` and `max` digits long, or has other characters.
    text_digits / TEXT_DIGITS = "text.digits" => INVALID_FORMAT { min: Int = "6", max: Int = "10" };
    /// A field of digits is not exactly `len` digits long, or has other characters.
    text_digits_exact / TEXT_DIGITS_EXACT = "text.digits_exact" => INVALID_FORMAT { len: Int = "8" };
    /// An identity document number is not 1 to 20 letters, digits or `-`.
    text_id_number / TEXT_ID_NUMBER = "text.id_number" => INVALID_FORMAT {};
    /// An e-mail address does not match SIFEN's `tEmail` (or is longer than 80 characters).
    text_email / TEXT_EMAIL = "text.email" => INVALID_FORMAT { value: Text = "ana@" };
    /// A date is not written `YYYY-MM-DD`.
    date_format / DATE_FORMAT = "date.format" => INVALID_FORMAT { value: Text = "10/03/2025" };
    /// A date or date-time has other characters where its digits go.
    date_digits / DATE_DIGITS = "date.digits" => INVALID_FORMAT { value: Text = "2025-0x-10" };
    /// A date is well written but is not a day of the calendar (`2025-02-30`).
    date_calendar / DATE_CALENDAR = "date.calendar" => INVALID_FORMAT { value: Text = "2025-02-30" };
    /// A date-time is not written `YYYY-MM-DDThh:mm:ss` (local time, no zone).
    date_datetime_format / DATE_DATETIME_FORMAT = "date.datetime_format" => INVALID_FORMAT { value: Text = "2025-03-10 10:11" };
    /// A date-time's time of day does not exist (`25:00:00`).
    date_time / DATE_TIME = "date.time" => INVALID_FORMAT { value: Text = "2025-03-10T25:00:00" };
}
