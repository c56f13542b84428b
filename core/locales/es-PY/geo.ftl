# Reglas de los lugares (core/src/rule/geo.rs). El id de un mensaje es el de la regla con `-` en lugar de `.`.
# Se trata al lector de usted; los nombres son los de la tabla de SIFEN (departamento, distrito, ciudad).

geo-unknown_departamento = El código de departamento no existe en la tabla de SIFEN
geo-unknown_distrito = El código de distrito no existe en la tabla de SIFEN
geo-unknown_ciudad = El código de ciudad no existe en la tabla de SIFEN
geo-ciudad_departamento = La ciudad no pertenece al departamento
geo-distrito_departamento = El distrito no pertenece al departamento
geo-ciudad_distrito = La ciudad no pertenece al distrito
