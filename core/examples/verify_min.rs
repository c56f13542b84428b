//! The verification benchmark's work and its parts, timed as the minimum over batches of 50 calls: on a shared
//! machine the minimum moves far less with load than criterion's mean (docs/benchmarks.md, "Verification profile").
//!
//! `cargo run --release -p kuatia-core --example verify_min -- MODE [CALLS]`, MODE one of `verify` (the free
//! function), `kept` (a kept `Verifier`), `raw` (one RSA-2048 verification in aws-lc, key parsing included), `c14n`
//! (exclusive C14N of the DE, parse included), `x509`, `certinfo`, `sha`, `b64`; CALLS defaults to 20 000.
#![allow(missing_docs, clippy::unwrap_used)]
use kuatia_core::sign::{sandbox_test_signer, sign_element, verify};

/// The same 3-item rDE as `benches/sign.rs`.
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
fn main() {
    let signer = sandbox_test_signer().unwrap();
    let xml = sample_rde();
    let id = "01444444017001001000000122025031011234567890";
    let signed = sign_element(&xml, id, &signer).unwrap();
    let what = std::env::args().nth(1).unwrap_or_default();
    let n: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    use kuatia_core::sign::Signer as _;
    let der = signer.certificate_der().to_vec();
    let b64text = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &der);
    let canon = kuatia_core::sign::c14n::canonicalize_element(
        &xml,
        id,
        &kuatia_core::sign::c14n::Method::EXCLUSIVE,
    )
    .unwrap();
    let (_, cert) = x509_parser::parse_x509_certificate(&der).unwrap();
    let public = cert.public_key().subject_public_key.data.to_vec();
    let digest = [7u8; 32];
    let raw_sig = signer.sign_rsa_sha256(&digest).unwrap();
    let mut kept = kuatia_core::sign::Verifier::new();
    let mut ok = 0;
    let mut best = f64::MAX;
    for _ in 0..n / 50 {
        let t = std::time::Instant::now();
        for _ in 0..50 {
            match what.as_str() {
                "c14n" => {
                    ok += kuatia_core::sign::c14n::canonicalize_element(
                        std::hint::black_box(&xml),
                        id,
                        &kuatia_core::sign::c14n::Method::EXCLUSIVE,
                    )
                    .unwrap()
                    .len()
                }
                "none" => {}
                "kept" => ok += kept.verify(std::hint::black_box(&signed.xml), None).valid as usize,
                "x509" => {
                    ok += x509_parser::parse_x509_certificate(std::hint::black_box(&der))
                        .unwrap()
                        .1
                        .raw_serial()
                        .len()
                }
                "certinfo" => {
                    ok += kuatia_core::sign::certificate_info(std::hint::black_box(&der))
                        .unwrap()
                        .subject
                        .len()
                }
                "sha" => {
                    ok += sha2::Digest::finalize(sha2::Digest::chain_update(
                        <sha2::Sha256 as sha2::Digest>::new(),
                        std::hint::black_box(&canon),
                    ))[0] as usize
                }
                "b64" => {
                    ok += base64::Engine::decode(
                        &base64::engine::general_purpose::STANDARD,
                        std::hint::black_box(&b64text),
                    )
                    .unwrap()
                    .len()
                }
                "raw" => {
                    ok += aws_lc_rs::signature::UnparsedPublicKey::new(
                        &aws_lc_rs::signature::RSA_PKCS1_2048_8192_SHA256,
                        std::hint::black_box(&public),
                    )
                    .verify(&digest, &raw_sig)
                    .is_ok() as usize
                }
                _ => ok += verify(std::hint::black_box(&signed.xml), None).valid as usize,
            }
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / 50.0);
    }
    println!("{what}: min {best:.2} µs per call ({ok})");
}
