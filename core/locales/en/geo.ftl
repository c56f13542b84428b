# Rules of places (core/src/rule/geo.rs). A message id is the rule id with `-` for `.`.
# The English texts are the ones kuatia wrote before the catalogs, byte for byte.

geo-unknown_departamento = unknown department code
geo-unknown_distrito = unknown district code
geo-unknown_ciudad = unknown city code
geo-ciudad_departamento = city does not belong to the department
geo-distrito_departamento = district does not belong to the department
geo-ciudad_distrito = city does not belong to the district
