# Reglas de las verificaciones de formularios del panel de cuentas (core/src/rule/panel.rs). El id de un mensaje es
# el de la regla con `-` en lugar de `.`. Se trata al lector de usted.

panel-form-required = este dato es obligatorio
panel-form-whole_number = debe ser un número entero
panel-form-date = fecha AAAA-MM-DD
panel-profile-actividad = escriba código | descripción
panel-profile-timbrado = escriba número | inicio | fin | tipos | establecimiento | punto (seis partes separadas por |)
panel-profile-tipos = tipos separados por comas, p. ej. 1,5,6
panel-certificate-no_file = no se envió ningún archivo
panel-certificate-refused = rechazado
panel-certificate-install = no se pudo instalar el certificado: { $detail }
