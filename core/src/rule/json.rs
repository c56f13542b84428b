//! Rules of reading JSON input (core/src/shape.rs and the request readers): serde's own complaints in the project's
//! words, malformed text, limits. Catalogs: `core/locales/<lang>/json.ftl`. The `must` and `found` terms name what a
//! value must be and what it is (`must_text`, `found_list`).

rules! {
    /// A value of the wrong JSON type: what it must be and what it is.
    json_type / JSON_TYPE = "json.type" => INVALID_TYPE { must: Term = "must_text", found: Term = "found_list" };
    /// A value of the wrong JSON type, of a kind that has no name.
    json_type_any / JSON_TYPE_ANY = "json.type_any" => INVALID_TYPE { must: Term = "must_list" };
    /// The request body is of the wrong JSON type: what it must be and what it is.
    json_body_type / JSON_BODY_TYPE = "json.body_type" => INVALID_TYPE { must: Term = "must_list", found: Term = "found_number" };
    /// The request body is of the wrong JSON type, of a kind that has no name.
    json_body_type_any / JSON_BODY_TYPE_ANY = "json.body_type_any" => INVALID_TYPE { must: Term = "must_list" };
    /// The request body is not a JSON object (`null`, a list, a number).
    json_not_object / JSON_NOT_OBJECT = "json.not_object" => INVALID_TYPE {};
    /// A value of the right type that is not one the field takes.
    json_value / JSON_VALUE = "json.value" => INVALID_VALUE { must: Term = "must_text" };
    /// A whole number outside the range of its field.
    json_range / JSON_RANGE = "json.range" => OUT_OF_RANGE { min: Int = "0", max: Int = "255" };
    /// A list (or an object read by position) with the wrong number of elements.
    json_length / JSON_LENGTH = "json.length" => INVALID_TYPE {};
    /// Text that is none of the field's values (`allowed`).
    json_variant / JSON_VARIANT = "json.variant" => INVALID_VALUE { allowed: List = "test" };
    /// A field the object does not have.
    json_unknown_field / JSON_UNKNOWN_FIELD = "json.unknown_field" => NOT_ALLOWED {};
    /// A field given twice in one object.
    json_duplicate_field / JSON_DUPLICATE_FIELD = "json.duplicate_field" => NOT_ALLOWED {};
    /// A required field is missing.
    json_missing / JSON_MISSING = "json.missing" => REQUIRED {};
    /// A value that cannot be read, for a reason serde gives in English (`detail`, untranslated).
    json_invalid / JSON_INVALID = "json.invalid" => INVALID_TYPE { detail: Text = "invalid number" };
    /// A value that cannot be read at all.
    json_unreadable / JSON_UNREADABLE = "json.unreadable" => INVALID_TYPE {};
    /// Text that is not JSON, where it broke and serde_json's reason (`detail`, untranslated).
    json_malformed / JSON_MALFORMED = "json.malformed" => MALFORMED_JSON { detail: Text = "expected value", line: Int = "1", column: Int = "5" };
    /// Bytes that are not UTF-8, from the first bad byte on.
    json_utf8 / JSON_UTF8 = "json.utf8" => MALFORMED_JSON { byte: Int = "12" };
    /// JSON nested deeper than the reader allows.
    json_depth / JSON_DEPTH = "json.depth" => MALFORMED_JSON { max: Int = "64" };
    /// A request larger than the reader allows, in bytes.
    json_too_large / JSON_TOO_LARGE = "json.too_large" => TOO_LARGE { size: Int = "2000000", max: Int = "1048576" };
    /// Text where a number goes that is not a number (`text`, up to 40 characters).
    json_not_number / JSON_NOT_NUMBER = "json.not_number" => INVALID_TYPE { text: Text = "12,5" };
    /// A number with more digits than a decimal holds exactly (28 significant digits).
    json_decimal_digits / JSON_DECIMAL_DIGITS = "json.decimal_digits" => INVALID_TYPE { text: Text = "1e40" };
    /// A code (of a CDC's parts) given as a number that is not a whole number 0 or more.
    json_whole_number / JSON_WHOLE_NUMBER = "json.whole_number" => INVALID_TYPE { got: Text = "-1" };
    /// A code given as text that is not 1 to `max` ASCII digits.
    json_digits / JSON_DIGITS = "json.digits" => INVALID_TYPE { max: Int = "3", got: Text = "1234" };
    /// A code given as neither a number nor text (`got` is the JSON value).
    json_code_type / JSON_CODE_TYPE = "json.code_type" => INVALID_TYPE { got: Text = "true" };
    /// A code larger than its field holds.
    json_too_big / JSON_TOO_BIG = "json.too_big" => INVALID_TYPE { value: Int = "4294967296" };
    /// A date given as text that is not `YYYY-MM-DD`.
    json_date / JSON_DATE = "json.date" => INVALID_TYPE { got: Text = "10/03/2025" };
    /// The input read, yet gave no value (a reader's own fault).
    json_no_value / JSON_NO_VALUE = "json.no_value" => INTERNAL_ERROR {};
}
