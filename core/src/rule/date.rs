//! Rules of dates and times as text (core/src/fmt.rs, [`crate::fmt::date_at`] and [`crate::fmt::datetime_at`]):
//! `YYYY-MM-DD` and SIFEN's local `YYYY-MM-DDThh:mm:ss`. `text` is the input's first 40 characters. Catalogs:
//! `core/locales/<lang>/date.ftl`.

rules! {
    /// Text that is not a date `YYYY-MM-DD`.
    date_format / DATE_FORMAT = "date.format" => INVALID_FORMAT { text: Text = "10/03/2025" };
    /// A date `YYYY-MM-DD` that is not on the calendar (`2025-02-30`).
    date_calendar / DATE_CALENDAR = "date.calendar" => INVALID_FORMAT { text: Text = "2025-02-30" };
    /// Text that is not a local date and time `YYYY-MM-DDThh:mm:ss` (no zone, no fraction).
    date_datetime_format / DATE_DATETIME_FORMAT = "date.datetime_format" => INVALID_FORMAT { text: Text = "2025-03-10 10:11" };
    /// A date and time whose time of day does not exist (`25:00:00`).
    date_time / DATE_TIME = "date.time" => INVALID_FORMAT { text: Text = "2025-03-10T25:00:00" };
    /// A date (or date and time) with something other than digits where digits go.
    date_digits / DATE_DIGITS = "date.digits" => INVALID_FORMAT { text: Text = "2025-0x-10" };
}
