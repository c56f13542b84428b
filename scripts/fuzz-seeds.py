#!/usr/bin/env python3
"""Seed inputs for the fuzz targets, written into <corpus>/<target>/ (used by scripts/fuzz-campaign.sh to start a
target's corpus; the committed, minimised corpora in fuzz/corpus/ are what CI's smoke run starts from).

Usage: fuzz-seeds.py <repository root> <corpus dir>
"""
import json, pathlib, sys
root, corpus = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for t in ["create_request", "de_xml", "p12", "ids", "service_handle", "sifen_response"]:
    (corpus / t).mkdir(parents=True, exist_ok=True)
for case in sorted((root / "tests/fixtures/cases").glob("*.json")):
    req = json.loads(case.read_text())["request"]
    (corpus / "create_request" / case.name).write_text(json.dumps(req))
    body = json.dumps(req)
    (corpus / "service_handle" / case.name).write_bytes(b"\x80/v1/facturas\nX-Environment: sandbox\nIdempotency-Key: k\n\n" + body.encode())
for s in sorted((root / "core/tests/sifen_samples").iterdir()):
    (corpus / "sifen_response" / s.name).write_bytes(s.read_bytes())
# A compact rDE (no signature) and the SIFEN samples (some embed an rDE) seed the DE parser.
(corpus / "de_xml" / "rde.xml").write_text(
    '<rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd"><dVerFor>150</dVerFor>'
    '<DE Id="01444444017001001000000122025031011234567890"><dDVId>0</dDVId><dFecFirma>2025-03-10T10:11:00</dFecFirma>'
    '<dSisFact>1</dSisFact><gTimb><iTiDE>1</iTiDE><dNumTim>12558946</dNumTim><dEst>001</dEst><dPunExp>001</dPunExp>'
    '<dNumDoc>0000001</dNumDoc></gTimb><gCamItem><dDesProSer>x</dDesProSer><dCantProSer>2</dCantProSer></gCamItem>'
    '</DE></rDE>')
for s in sorted((root / "core/tests/sifen_samples").glob("*.xml")):
    (corpus / "de_xml" / s.name).write_bytes(s.read_bytes())
for p in sorted((root / "tests/fixtures/certs").glob("*.p12")):
    (corpus / "p12" / p.name).write_bytes(b"\x01" + p.read_bytes())
for i, s in enumerate(["80069563-1", "44444401-7", "01444444017001001000000122025031011234567890", "4444440-1"]):
    (corpus / "ids" / f"seed{i}").write_text(s)
for m, p in [(1, "/v1/health"), (0x80, "/v1/facturas?page=2&per_page=5"), (0x81, "/v1/webhooks")]:
    (corpus / "service_handle" / f"seed{m}").write_bytes(bytes([m]) + p.encode() + b"\nX-Environment: sandbox\n\n")

# Events: one of each kind (the forms of core/tests/sifen_events.rs json_forms_read_to_the_rust_inputs).
cdc = "01444444017001001000000122025031011234567890"
f = {"fecha_firma": "2025-03-11T09:00:00"}
events = [
    {"tipo": "cancelacion", "id": 1, **f, "cdc": cdc, "motivo": "Error en datos del receptor"},
    {"tipo": "inutilizacion", "id": 2, **f, "timbrado": "12558946", "establecimiento": "001", "punto": "001",
     "desde": 5, "hasta": 1004, "tipo_documento": 1, "motivo": "Salto de numeración"},
    {"tipo": "nominacion", "id": 3, **f, "cdc": cdc, "motivo": "Nominación del receptor", "tipo_operacion": 1,
     "pais": "PRY", "nombre": "Cliente Ejemplo S.A.", "identidad": {"ruc": "80069563-1", "tipo_contribuyente": 2},
     "direccion": "Avda. España 123", "email": "cliente@example.com"},
    {"tipo": "transporte", "id": 5, **f, "cdc": cdc,
     "cambio": {"tipo_cambio": "vehiculo", "modalidad": 1, "tipo": "Camión", "marca": "Volvo", "matricula": "ABC123"}},
    {"tipo": "notificacion_recepcion", "id": 11, **f, "cdc": cdc, "fecha_emision": "2025-03-10T10:11:00",
     "fecha_recepcion": "2025-03-10T15:00:00", "receptor": {"nombre": "Cliente Ejemplo S.A.", "ruc": "80069563-1"},
     "total_gs": "1100000"},
    {"tipo": "conformidad", "id": 13, **f, "cdc": cdc, "parcial": True, "fecha_recepcion": "2025-03-10T15:00:00"},
    {"tipo": "disconformidad", "id": 14, **f, "cdc": cdc, "motivo": "Mercadería dañada"},
    {"tipo": "desconocimiento", "id": 15, **f, "cdc": cdc, "fecha_emision": "2025-03-10T10:11:00",
     "fecha_recepcion": "2025-03-10T15:00:00", "motivo": "Operación no reconocida",
     "receptor": {"nombre": "Juan Pérez", "tipo_documento": 1, "numero": "1234567"}},
]
(corpus / "event_json").mkdir(parents=True, exist_ok=True)
for e in events:
    (corpus / "event_json" / f"{e['tipo']}{e['id']}.json").write_text(json.dumps(e, ensure_ascii=False))

# Structured targets (kude, service_model) read their choices from raw bytes: a few byte patterns to start from.
for t in ["kude", "service_model"]:
    (corpus / t).mkdir(parents=True, exist_ok=True)
    for i, b in enumerate([bytes(64), bytes(range(256)), b"\xff" * 128, b"Mandi'o \xc3\xb1andut\xc3\xad " * 20]):
        (corpus / t / f"seed{i}").write_bytes(b)

# C14N differential: documents whose root carries Id="r" (namespaces, prefixed attributes, references, CDATA).
(corpus / "c14n_diff").mkdir(parents=True, exist_ok=True)
docs = [
    '<r Id="r"/>',
    '<?xml version="1.0" encoding="UTF-8"?><rDE xmlns="http://ekuatia.set.gov.py/sifen/xsd" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" Id="r" xsi:schemaLocation="x"><dVerFor>150</dVerFor>'
    '<DE Id="1"><a/><b z="1" a=\'"x"\'>&amp;&lt;&gt;&quot;</b></DE></rDE>',
    '<r Id="r" xmlns:b="urn:a" xmlns:a="urn:b"><e a:x="1" b:y="2" z="3"/></r>',
    '<r Id="r" a="x\ty&#9;z&#xA;\r\n">t\r\nu&#xD;<![CDATA[<&>]]></r>',
    '<p:r xmlns:p="urn:p" xmlns:q="urn:q" Id="r"><q:c xmlns="urn:d"><d xmlns=""/></q:c><!-- c --></p:r>',
    '<r Id="r" xml:lang="gn"><e xml:space="preserve">  ñandutí  </e></r>',
]
for i, d in enumerate(docs):
    (corpus / "c14n_diff" / f"doc{i}.xml").write_text(d)
