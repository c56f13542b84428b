# Reglas del texto del QR dCarQR (core/src/rule/qr.rs). El id de un mensaje es el de la regla con `-` en lugar de
# `.`. Se trata al lector de usted; los nombres de los parámetros son los del QR de SIFEN.

qr-base_url = El QR no comienza con una URL base de QR de SIFEN
qr-param_count = El QR tiene menos de los 10 parámetros esperados
qr-extra_param = El QR tiene un parámetro inesperado después de cHashQR
qr-param = Se esperaba el parámetro { $name } en esta posición del QR
qr-cdc = El Id del QR no es un CDC de 44 caracteres
qr-items = El cItems del QR no es un número
qr-csc_id = El IdCSC del QR no tiene 4 dígitos
qr-hash = El cHashQR del QR no tiene 64 dígitos hexadecimales en minúscula
qr-hex = El parámetro { $name } del QR no es texto UTF-8 en hexadecimal en minúscula
qr-no_rde = El documento firmado no tiene el cierre </rDE>
