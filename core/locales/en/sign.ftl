# Rules of signing, keys, certificates and signature verification (core/src/rule/sign.rs). A message id is the rule
# id with `-` for `.`. The English texts are the ones kuatia wrote before the catalogs, byte for byte.

# Why a key is not usable (rule sign.key_unsupported, parameter `reason`).
-sign-key-ec = the key is an EC key
-sign-key-short = the RSA key is shorter than 2048 bits
-sign-key-rejected = the RSA key was rejected (invalid, or outside 2048 to 8192 bits)
-sign-key-not_rsa = the key is not an RSA key
-sign-key-cert_not_rsa = the certificate key is not RSA

# Why a certificate's RSA key is not verified (rule cert.rsa_key, parameter `reason`).
-cert-rsa-unreadable = cannot read the RSA public key
-cert-rsa-integer = the RSA public key has a negative or empty integer
-cert-rsa-even = the RSA public key has an even modulus
-cert-rsa-exponent = the RSA public key has an exponent outside 3 to 2^33 - 1 or even

sign-id_missing = no element with Id="{ $id }"
sign-id_duplicate = { $count } elements share the referenced Id
sign-p12_invalid = not a readable PKCS#12 file ({ $detail })
sign-p12_password = wrong PKCS#12 password
sign-p12_no_key = the PKCS#12 file holds no private key
sign-p12_no_cert = the PKCS#12 file holds no certificate
sign-key_invalid = cannot read the private key ({ $detail })
sign-key_unsupported = { $reason }; SIFEN needs an RSA key of 2048 bits or more
sign-key_cert_mismatch = the private key does not belong to the certificate
sign-failed = { $detail }
sign-missing = the document has no XMLDSig Signature
sign-signed_info_missing = Signature has no SignedInfo
sign-reference_count = SignedInfo must hold exactly one Reference
sign-reference_uri = Reference URI must be #Id of the signed element
sign-value_missing = { $element } is missing or not base64
sign-algorithm = { $element } "{ $uri }" is not supported
sign-digest = the element with Id="{ $id }" does not match DigestValue
sign-invalid = SignatureValue does not verify with the certificate's key

cert-invalid = cannot read the certificate ({ $detail })
cert-not_yet_valid = the certificate is valid from { $not_before } but the time is { $at }
cert-expired = the certificate expired on { $not_after }; the time is { $at }
cert-ruc_missing = the certificate has no RUC serialNumber in its subject or SubjectAltName
cert-ruc_mismatch = the certificate belongs to RUC { $certificate }, not to the emitter { $emitter }
cert-key_not_rsa = the certificate key is not RSA
cert-rsa_key = { $reason }
cert-rsa_bits = the certificate's RSA key has { $bits } bits; { $min } to { $max } are verified
