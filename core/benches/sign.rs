//! Signing benchmarks: raw RSA-2048 (the floor), `sign_element` of a ~4 KB DE, and verification with its own floor,
//! one raw RSA-2048 public-key verification in aws-lc (issue #15: verify ≤ 50 µs natively): `verify` (the free
//! function, which reads the certificate every time) and `verify_kept` (a `Verifier` kept across documents, which
//! has read this certificate before).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify, Signer, Verifier};

/// A compact rDE shaped like our XML writer's output: 3 items, ~4 KB.
fn sample_rde() -> String {
    let id = "01444444017001001000000122025031011234567890";
    let mut items = String::new();
    for i in 1..=3 {
        items.push_str(&format!(
            "<gCamItem><dCodInt>ART-{i:03}</dCodInt><dDesProSer>Producto de prueba número {i} &amp; servicio asociado</dDesProSer><cUniMed>77</cUniMed><dDesUniMed>UNI</dDesUniMed><dCantProSer>{i}</dCantProSer><gValorItem><dPUniProSer>110000</dPUniProSer><dTotBruOpeItem>{t}</dTotBruOpeItem><gValorRestaItem><dDescItem>0</dDescItem><dPorcDesIt>0</dPorcDesIt><dDescGloItem>0</dDescGloItem><dTotOpeItem>{t}</dTotOpeItem></gValorRestaItem></gValorItem><gCamIVA><iAfecIVA>1</iAfecIVA><dDesAfecIVA>Gravado IVA</dDesAfecIVA><dPropIVA>100</dPropIVA><dTasaIVA>10</dTasaIVA><dBasGravIVA>{b}</dBasGravIVA><dLiqIVAItem>{l}</dLiqIVAItem><dBasExe>0</dBasExe></gCamIVA></gCamItem>",
            t = 110000 * i, b = 100000 * i, l = 10000 * i
        ));
    }
    let mut de = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rDE xmlns=\"http://ekuatia.set.gov.py/sifen/xsd\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://ekuatia.set.gov.py/sifen/xsd siRecepDE_v150.xsd\"><dVerFor>150</dVerFor><DE Id=\"{id}\"><dDVId>0</dDVId><dFecFirma>2025-03-10T10:11:00</dFecFirma><dSisFact>1</dSisFact><gOpeDE><iTipEmi>1</iTipEmi><dDesTipEmi>Normal</dDesTipEmi><dCodSeg>123456789</dCodSeg></gOpeDE><gTimb><iTiDE>1</iTiDE><dDesTiDE>Factura electrónica</dDesTiDE><dNumTim>12558946</dNumTim><dEst>001</dEst><dPunExp>001</dPunExp><dNumDoc>0000001</dNumDoc><dFeIniT>2024-01-01</dFeIniT></gTimb><gDatGralOpe><dFeEmiDE>2025-03-10T10:11:00</dFeEmiDE><gOpeCom><iTipTra>1</iTipTra><dDesTipTra>Venta de mercadería</dDesTipTra><iTImp>1</iTImp><dDesTImp>IVA</dDesTImp><cMoneOpe>PYG</cMoneOpe><dDesMoneOpe>Guarani</dDesMoneOpe></gOpeCom><gEmis><dRucEm>44444401</dRucEm><dDVEmi>7</dDVEmi><iTipCont>2</iTipCont><dNomEmi>DE generado en ambiente de prueba - sin valor comercial ni fiscal</dNomEmi><dDirEmi>Avda. España 1234</dDirEmi><dNumCas>1234</dNumCas><cDepEmi>1</cDepEmi><dDesDepEmi>CAPITAL</dDesDepEmi><cCiuEmi>1</cCiuEmi><dDesCiuEmi>ASUNCION (DISTRITO)</dDesCiuEmi><dTelEmi>021123456</dTelEmi><dEmailE>test@example.com</dEmailE><gActEco><cActEco>62010</cActEco><dDesActEco>Actividades de programación informática</dDesActEco></gActEco></gEmis><gDatRec><iNatRec>1</iNatRec><iTiOpe>1</iTiOpe><cPaisRec>PRY</cPaisRec><dDesPaisRe>Paraguay</dDesPaisRe><iTiContRec>1</iTiContRec><dRucRec>1234567</dRucRec><dDVRec>9</dDVRec><dNomRec>Cliente de Prueba S.A.</dNomRec></gDatRec></gDatGralOpe><gDtipDE><gCamFE><iIndPres>1</iIndPres><dDesIndPres>Operación presencial</dDesIndPres></gCamFE><gCamCond><iCondOpe>1</iCondOpe><dDCondOpe>Contado</dDCondOpe><gPaConEIni><iTiPago>1</iTiPago><dDesTiPag>Efectivo</dDesTiPag><dMonTiPag>660000</dMonTiPag><cMoneTiPag>PYG</cMoneTiPag><dDMoneTiPag>Guarani</dDMoneTiPag></gPaConEIni></gCamCond>{items}</gDtipDE><gTotSub><dSubExe>0</dSubExe><dSubExo>0</dSubExo><dSub5>0</dSub5><dSub10>660000</dSub10><dTotOpe>660000</dTotOpe><dTotDesc>0</dTotDesc><dTotDescGlotem>0</dTotDescGlotem><dTotAntItem>0</dTotAntItem><dTotAnt>0</dTotAnt><dPorcDescTotal>0</dPorcDescTotal><dDescTotal>0</dDescTotal><dAnticipo>0</dAnticipo><dRedon>0</dRedon><dTotGralOpe>660000</dTotGralOpe><dIVA5>0</dIVA5><dIVA10>60000</dIVA10><dLiqTotIVA5>0</dLiqTotIVA5><dLiqTotIVA10>0</dLiqTotIVA10><dTotIVA>60000</dTotIVA><dBaseGrav5>0</dBaseGrav5><dBaseGrav10>600000</dBaseGrav10><dTBasGraIVA>600000</dTBasGraIVA></gTotSub></DE></rDE>"
    );
    de.shrink_to_fit();
    de
}

fn benches(c: &mut Criterion) {
    let signer = sandbox_test_signer().unwrap();
    let xml = sample_rde();
    let id = "01444444017001001000000122025031011234567890";
    let digest = [7u8; 32];
    c.bench_function("rsa_raw_sign", |b| {
        b.iter(|| signer.sign_rsa_sha256(black_box(&digest)).unwrap())
    });
    c.bench_function("sign_element", |b| {
        b.iter(|| sign_element(black_box(&xml), id, &signer).unwrap())
    });
    // The non-RSA part of signing: C14N, SHA-256, base64, SignedInfo and output assembly.
    let fake = FixedSigner(signer.certificate_der().to_vec());
    c.bench_function("sign_element_without_rsa", |b| {
        b.iter(|| sign_element(black_box(&xml), id, &fake).unwrap())
    });
    let signed = sign_element(&xml, id, &signer).unwrap();
    c.bench_function("verify", |b| {
        b.iter(|| verify(black_box(&signed.xml), None))
    });
    let mut kept = Verifier::new();
    c.bench_function("verify_kept", |b| {
        b.iter(|| kept.verify(black_box(&signed.xml), None))
    });
    // The floor of `verify`: the RSA-2048 public-key operation alone (aws-lc, key parsing included, as in verify).
    let (_, cert) =
        x509_parser::parse_x509_certificate(signer.certificate_der()).expect("certificate");
    let public = cert.public_key().subject_public_key.data.to_vec();
    let raw_sig = signer.sign_rsa_sha256(&digest).unwrap();
    c.bench_function("rsa2048_raw_verify", |b| {
        b.iter(|| {
            aws_lc_rs::signature::UnparsedPublicKey::new(
                &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
                black_box(&public),
            )
            .verify(&digest, black_box(&raw_sig))
            .unwrap()
        })
    });
    c.bench_function("quick_xml_parse_only", |b| {
        b.iter(|| parse_only(black_box(&xml)))
    });
    c.bench_function("c14n_de", |b| {
        b.iter(|| {
            kuatia_core::sign::c14n::canonicalize_element(
                black_box(&xml),
                id,
                &kuatia_core::sign::c14n::Method::EXCLUSIVE,
            )
            .unwrap()
        })
    });
}

/// A signer that returns a constant, to time everything but the RSA operation.
struct FixedSigner(Vec<u8>);

impl Signer for FixedSigner {
    fn certificate_der(&self) -> &[u8] {
        &self.0
    }
    fn sign_rsa_sha256(&self, _data: &[u8]) -> Result<Vec<u8>, kuatia_core::sign::SignError> {
        Ok(vec![0x5a; 256])
    }
}

fn parse_only(xml: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut n = 0;
    while !matches!(
        reader.read_event(),
        Ok(quick_xml::events::Event::Eof) | Err(_)
    ) {
        n += 1;
    }
    n
}

criterion_group!(sign, benches);
criterion_main!(sign);
