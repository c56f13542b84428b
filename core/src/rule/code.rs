//! Rules of codes from SIFEN's tables (types, currencies, countries, places: an unknown department, district or city is a
//! `code.unknown` too): an unknown value, whatever the field
//! (the path names it; `what` names the table). Catalogs: `core/locales/<lang>/code.ftl`, with the tables' names as
//! terms.

rules! {
    /// A numeric code is not one of its table's values; `what` names the table (a catalog term).
    code_unknown / CODE_UNKNOWN = "code.unknown" => INVALID_VALUE { value: Int = "7", what: Term = "condicion_pago" };
    /// A code of establishment or point of issue is not three digits from 001 to 999.
    code_three_digits / CODE_THREE_DIGITS = "code.three_digits" => INVALID_FORMAT {};
    /// A currency is not an ISO 4217 code SIFEN accepts.
    code_currency / CODE_CURRENCY = "code.currency" => INVALID_VALUE { value: Text = "XYZ" };
    /// A country is not an ISO 3166 alpha-3 code SIFEN accepts.
    code_country / CODE_COUNTRY = "code.country" => INVALID_VALUE { value: Text = "PY" };
    /// An Incoterm is not one SIFEN accepts.
    code_incoterm / CODE_INCOTERM = "code.incoterm" => INVALID_VALUE { value: Text = "XXX" };
    /// The city is not in the department given (SIFEN 1255).
    geo_ciudad_departamento / GEO_CIUDAD_DEPARTAMENTO = "geo.ciudad.departamento" => INCONSISTENT {};
    /// The district is not in the department given (SIFEN 1255).
    geo_distrito_departamento / GEO_DISTRITO_DEPARTAMENTO = "geo.distrito.departamento" => INCONSISTENT {};
    /// The city is not in the district given (SIFEN 1255).
    geo_ciudad_distrito / GEO_CIUDAD_DISTRITO = "geo.ciudad.distrito" => INCONSISTENT {};
    /// Of department and city, one is given without the other.
    geo_pair / GEO_PAIR = "geo.pair" => REQUIRED { field: Text = "ciudad", with: Text = "departamento" };
}
