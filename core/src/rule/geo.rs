//! Rules of places: department, district and city codes of an address and whether they belong together (SIFEN
//! rejects inconsistent ones with code 1255), [`crate::geo::location_rule`]. Catalogs: `core/locales/<lang>/geo.ftl`.

rules! {
    /// The department code is not SIFEN's.
    geo_unknown_departamento / GEO_UNKNOWN_DEPARTAMENTO = "geo.unknown_departamento" => INCONSISTENT {};
    /// The district code is not SIFEN's.
    geo_unknown_distrito / GEO_UNKNOWN_DISTRITO = "geo.unknown_distrito" => INCONSISTENT {};
    /// The city code is not SIFEN's.
    geo_unknown_ciudad / GEO_UNKNOWN_CIUDAD = "geo.unknown_ciudad" => INCONSISTENT {};
    /// The city is not in the department.
    geo_ciudad_departamento / GEO_CIUDAD_DEPARTAMENTO = "geo.ciudad_departamento" => INCONSISTENT {};
    /// The district is not in the department.
    geo_distrito_departamento / GEO_DISTRITO_DEPARTAMENTO = "geo.distrito_departamento" => INCONSISTENT {};
    /// The city is not in the district.
    geo_ciudad_distrito / GEO_CIUDAD_DISTRITO = "geo.ciudad_distrito" => INCONSISTENT {};
}
