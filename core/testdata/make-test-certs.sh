#!/bin/sh
# Regenerates every test-only key, certificate and PKCS#12 file in this directory.
# These files are PUBLIC and for tests only (see README.md). Needs OpenSSL 3 with the legacy provider.
# Dates are set with `openssl ca -selfsign -startdate/-enddate` because OpenSSL 3.0 `req` cannot set them.
set -eu
cd "$(dirname "$0")"
PASS=kuatia-test
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Minimal CA config so `openssl ca -selfsign` can issue self-signed certs with fixed validity dates.
cat > "$WORK/ca.cnf" <<CNF
[ ca ]
default_ca = test_ca
[ test_ca ]
database = $WORK/index.txt
new_certs_dir = $WORK
serial = $WORK/serial
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
email_in_dn = no
[ any ]
commonName = supplied
serialNumber = optional
organizationName = optional
countryName = optional
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = placeholder
[ v3_sign ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
[ v3_person ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation
extendedKeyUsage = clientAuth
subjectAltName = dirName:person_san
[ person_san ]
serialNumber = RUC80069563-1
O = EMPRESA DE PRUEBA S.A.
CNF

# selfsign NAME KEY SUBJECT START END EXT -> NAME.cert.pem
selfsign() {
  : > "$WORK/index.txt"
  echo 1000 > "$WORK/serial"
  openssl req -new -config "$WORK/ca.cnf" -key "$2" -subj "$3" -out "$WORK/$1.csr"
  openssl ca -batch -notext -config "$WORK/ca.cnf" -selfsign -keyfile "$2" -in "$WORK/$1.csr" \
    -startdate "$4" -enddate "$5" -extensions "$6" -out "$1.cert.pem" 2>/dev/null
}

# Keys: the sandbox RSA-2048 key, a second RSA key (mismatch tests), a 1024-bit RSA key and an EC P-256 key.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sandbox.key.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other.key.pem
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out rsa1024.key.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.key.pem

SANDBOX_SUBJ="/CN=kuatia SANDBOX TEST ONLY - NOT VALID FOR SIFEN/serialNumber=RUC44444401-7/O=kuatia test/C=PY"
selfsign sandbox  sandbox.key.pem "$SANDBOX_SUBJ" 20240101000000Z 20540101000000Z v3_sign
selfsign expired  sandbox.key.pem "/CN=kuatia EXPIRED TEST/serialNumber=RUC44444401-7/C=PY" 20200101000000Z 20210101000000Z v3_sign
selfsign notyet   sandbox.key.pem "/CN=kuatia NOT YET VALID TEST/serialNumber=RUC44444401-7/C=PY" 20900101000000Z 20910101000000Z v3_sign
# Natural person: subject serialNumber is the ID card, the taxpayer RUC is in SubjectAltName dirName.
selfsign person   sandbox.key.pem "/CN=JUAN PEREZ TEST/serialNumber=CI1234567/C=PY" 20240101000000Z 20540101000000Z v3_person
selfsign norucs   sandbox.key.pem "/CN=kuatia NO RUC TEST/C=PY" 20240101000000Z 20540101000000Z v3_sign
selfsign rsa1024  rsa1024.key.pem "/CN=kuatia RSA1024 TEST/serialNumber=RUC44444401-7/C=PY" 20240101000000Z 20540101000000Z v3_sign
selfsign ec       ec.key.pem "/CN=kuatia EC TEST/serialNumber=RUC44444401-7/C=PY" 20240101000000Z 20540101000000Z v3_sign

# PKCS#12 files. OpenSSL 3 default: PBES2/PBKDF2-HMAC-SHA256/AES-256-CBC for key and certs, HMAC-SHA256 MAC.
openssl pkcs12 -export -inkey sandbox.key.pem -in sandbox.cert.pem -name sandbox -passout pass:$PASS -out sandbox.p12
# Legacy: pbeWithSHAAnd3-KeyTripleDES-CBC for the key, pbeWithSHAAnd40BitRC2-CBC for the certs, SHA-1 MAC.
openssl pkcs12 -export -legacy -inkey sandbox.key.pem -in sandbox.cert.pem -name sandbox -passout pass:$PASS -out sandbox-legacy.p12
# Certificates only.
openssl pkcs12 -export -nokeys -in sandbox.cert.pem -passout pass:$PASS -out nokeys.p12
# Unsupported keys.
openssl pkcs12 -export -inkey ec.key.pem -in ec.cert.pem -passout pass:$PASS -out ec.p12
openssl pkcs12 -export -inkey rsa1024.key.pem -in rsa1024.cert.pem -passout pass:$PASS -out rsa1024.p12
rm -f ./*.csr
