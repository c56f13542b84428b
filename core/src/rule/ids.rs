//! Rules of the identifiers: the RUC ([`crate::ruc::RucError`]) and the CDC ([`crate::cdc::CdcError`]), all with the
//! codes `INVALID_RUC` and `INVALID_CDC`. Catalogs: `core/locales/<lang>/ids.ftl`.

rules! {
    /// The RUC is empty (or only spaces).
    ruc_empty / RUC_EMPTY = "ruc.empty" => INVALID_RUC {};
    /// The RUC has a character that cannot appear at that position (0-based, in characters).
    ruc_char / RUC_CHAR = "ruc.char" => INVALID_RUC { ch: Text = "#", pos: Int = "3" };
    /// The RUC has a letter where only a final letter A-D is allowed.
    ruc_letter / RUC_LETTER = "ruc.letter" => INVALID_RUC { ch: Text = "x", pos: Int = "2" };
    /// The RUC's body (without the check digit) is shorter than XSD `tRuc` allows.
    ruc_too_short / RUC_TOO_SHORT = "ruc.too_short" => INVALID_RUC { len: Int = "1", min: Int = "3" };
    /// The RUC's body is longer than XSD `tRuc` allows.
    ruc_too_long / RUC_TOO_LONG = "ruc.too_long" => INVALID_RUC { len: Int = "9", max: Int = "8" };
    /// The RUC's body starts with `0`, which XSD `tRuc` forbids.
    ruc_leading_zero / RUC_LEADING_ZERO = "ruc.leading_zero" => INVALID_RUC {};
    /// The check digit is missing (`80069563-`).
    ruc_dv_missing / RUC_DV_MISSING = "ruc.dv_missing" => INVALID_RUC {};
    /// A RUC given to the consulta-ruc web service has a body shorter than its schema's minimum.
    ruc_consulta_too_short / RUC_CONSULTA_TOO_SHORT = "ruc.consulta_too_short" => INVALID_RUC { len: Int = "4", min: Int = "5" };
    /// No `-` between the body and the check digit (`80069568`): the form is ambiguous, so it is refused.
    ruc_separator_missing / RUC_SEPARATOR_MISSING = "ruc.separator_missing" => INVALID_RUC {};
    /// The check digit is not a single decimal digit.
    ruc_dv_invalid / RUC_DV_INVALID = "ruc.dv_invalid" => INVALID_RUC { found: Text = "12" };
    /// The RUC's check digit does not match its body.
    ruc_check_digit / RUC_CHECK_DIGIT = "ruc.check_digit" => INVALID_RUC { expected: Int = "1", got: Int = "2" };
    /// A CDC does not have its 44 characters.
    cdc_length / CDC_LENGTH = "cdc.length" => INVALID_CDC { expected: Int = "44", got: Int = "43" };
    /// A CDC has a character that is not a digit (0-based position).
    cdc_char / CDC_CHAR = "cdc.char" => INVALID_CDC { ch: Text = "x", pos: Int = "10" };
    /// A CDC has, where the RUC's last character goes, neither a digit nor a letter A-D.
    cdc_ruc_char / CDC_RUC_CHAR = "cdc.ruc_char" => INVALID_CDC { ch: Text = "x", pos: Int = "9" };
    /// The CDC's check digit does not match the other 43 digits.
    cdc_check_digit / CDC_CHECK_DIGIT = "cdc.check_digit" => INVALID_CDC { expected: Int = "8", got: Int = "7" };
    /// A field of a CDC is outside its range.
    cdc_range / CDC_RANGE = "cdc.range" => INVALID_CDC { field: Text = "punto", value: Int = "0", min: Int = "1", max: Int = "999" };
    /// The CDC's emission date is not a real calendar date or its year is not 1–9999.
    cdc_date / CDC_DATE = "cdc.date" => INVALID_CDC { text: Text = "20250230" };
    /// The RUC inside a CDC is invalid; `reason` is the RUC rule, whose parameters the finding carries too.
    cdc_ruc / CDC_RUC = "cdc.ruc" => INVALID_CDC { reason: Rule = "ruc.check_digit" };
}
