//! Rules of numbers and amounts: sign, decimals, integer digits and ranges, whatever the field (the path names it).
//! Catalogs: `core/locales/<lang>/amount.ftl`.

rules! {
    /// An amount or quantity is negative.
    amount_negative / AMOUNT_NEGATIVE = "amount.negative" => OUT_OF_RANGE { got: Dec = "-5" };
    /// An amount or quantity that must be positive is zero.
    amount_zero / AMOUNT_ZERO = "amount.zero" => OUT_OF_RANGE {};
    /// An amount has more decimals than its field allows.
    amount_decimals / AMOUNT_DECIMALS = "amount.decimals" => OUT_OF_RANGE { max: Int = "4", got: Dec = "1.23456" };
    /// An amount has more integer digits than its field allows.
    amount_integer_digits / AMOUNT_INTEGER_DIGITS = "amount.integer_digits" => OUT_OF_RANGE { max: Int = "5", got: Dec = "123456" };
    /// A whole number is outside `min..=max`.
    amount_range / AMOUNT_RANGE = "amount.range" => OUT_OF_RANGE { min: Int = "1", max: Int = "999" };
    /// A whole number has more than `max` digits.
    amount_digits / AMOUNT_DIGITS = "amount.digits" => OUT_OF_RANGE { max: Int = "6" };
}
