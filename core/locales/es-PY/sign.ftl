# Reglas de la firma, las claves, los certificados y la verificación de firmas (core/src/rule/sign.rs). El id de un
# mensaje es el de la regla con `-` en lugar de `.`. Los nombres de XMLDSig (Signature, SignedInfo, Reference,
# DigestValue, SignatureValue) y de los formatos (PKCS#12, PEM, RSA) quedan como nombres.

# Por qué una clave no sirve (regla sign.key_unsupported, parámetro `reason`).
-sign-key-ec = La clave es de tipo EC
-sign-key-short = La clave RSA tiene menos de 2048 bits
-sign-key-rejected = La clave RSA fue rechazada (no es válida o no tiene entre 2048 y 8192 bits)
-sign-key-not_rsa = La clave no es RSA
-sign-key-cert_not_rsa = La clave del certificado no es RSA

# Por qué no se verifica la clave RSA de un certificado (regla cert.rsa_key, parámetro `reason`).
-cert-rsa-unreadable = No se puede leer la clave pública RSA del certificado
-cert-rsa-integer = La clave pública RSA del certificado tiene un entero negativo o vacío
-cert-rsa-even = La clave pública RSA del certificado tiene un módulo par
-cert-rsa-exponent = La clave pública RSA del certificado tiene un exponente par o fuera del rango de 3 a 2^33 - 1

sign-id_missing = Ningún elemento tiene el Id="{ $id }"
sign-id_duplicate = { $count } elementos tienen el mismo Id referenciado
sign-p12_invalid = El archivo no es un PKCS#12 legible ({ $detail })
sign-p12_password = La contraseña del archivo PKCS#12 no es correcta
sign-p12_no_key = El archivo PKCS#12 no contiene una clave privada
sign-p12_no_cert = El archivo PKCS#12 no contiene un certificado
sign-key_invalid = No se puede leer la clave privada ({ $detail })
sign-key_unsupported = { $reason }; SIFEN requiere una clave RSA de 2048 bits o más
sign-key_cert_mismatch = La clave privada no corresponde al certificado
sign-failed = No se pudo firmar: { $detail }
sign-missing = El documento no tiene una firma XMLDSig (Signature)
sign-signed_info_missing = La firma (Signature) no tiene SignedInfo
sign-reference_count = SignedInfo debe contener exactamente un Reference
sign-reference_uri = El URI de Reference debe ser # seguido del Id del elemento firmado
sign-value_missing = { $element } falta o no está en base64
sign-algorithm = No se admite { $element } "{ $uri }"
sign-digest = El elemento con Id="{ $id }" no corresponde al DigestValue: fue modificado después de firmarse
sign-invalid = SignatureValue no se verifica con la clave del certificado

cert-invalid = No se puede leer el certificado ({ $detail })
cert-not_yet_valid = El certificado es válido desde { $not_before }, pero la fecha indicada es { $at }
cert-expired = El certificado venció el { $not_after }; la fecha indicada es { $at }
cert-ruc_missing = El certificado no tiene el RUC (serialNumber) en su titular (subject) ni en SubjectAltName
cert-ruc_mismatch = El certificado pertenece al RUC { $certificate }, no al del emisor { $emitter }
cert-key_not_rsa = La clave del certificado no es RSA
cert-rsa_key = { $reason }
cert-rsa_bits = La clave RSA del certificado tiene { $bits } bits; se verifican claves de { $min } a { $max } bits
