//! SIFEN code tables: each function maps a code to the description SIFEN expects next to it.
//!
//! Literals are copied byte for byte from the XSDs (`DE_Types_v150.xsd`, `DE_v150.xsd` and the
//! list schemas); the large lists live in the generated `codes/xsd.rs` (`tools/gen_sifen_tables.py`).
//! Every function says whether the XSD *enforces* its literal (closed enumeration: any other text
//! is a schema error) or merely suggests it (union with free text, or no description element).
//! `None` means "not a code of this table" or, for the "Otro" codes (9/99), "free text: the caller
//! writes its own description".

mod xsd;

/// iTiDE → dDesTiDE (C002/C003). Closed XSD enumeration `tdDesTiDE`.
///
/// 9 `Boleta de venta electrónica` and 10 `Boleta resimple electrónica` exist only in the XSD
/// (no MT/NT describes them); callers that issue the MT's five types should reject them.
pub fn tipo_documento(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Factura electrónica",
        4 => "Autofactura electrónica",
        5 => "Nota de crédito electrónica",
        6 => "Nota de débito electrónica",
        7 => "Nota de remisión electrónica",
        9 => "Boleta de venta electrónica",
        10 => "Boleta resimple electrónica",
        _ => return None,
    })
}

/// iTipEmi → dDesTipEmi (B002/B003). Closed XSD enumeration `tdDesTipEmi`.
pub fn tipo_emision(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Normal",
        2 => "Contingencia",
        _ => return None,
    })
}

/// iTipTra → dDesTipTra (D011/D012), codes 1–13. Closed XSD enumeration `tdDesTiTran`.
pub fn tipo_transaccion(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Venta de mercadería",
        2 => "Prestación de servicios",
        3 => "Mixto (Venta de mercadería y servicios)",
        4 => "Venta de activo fijo",
        5 => "Venta de divisas",
        6 => "Compra de divisas",
        7 => "Promoción o entrega de muestras",
        8 => "Donación",
        9 => "Anticipo",
        10 => "Compra de productos",
        11 => "Compra de servicios",
        12 => "Venta de crédito fiscal",
        13 => "Muestras médicas (Art. 3 RG 24/2014)",
        _ => return None,
    })
}

/// iTImp → dDesTImp (D013/D014), codes 1–5. Closed XSD enumeration `tdDesTImp`
/// (the XSD notes that only 1 `IVA` is accepted for now).
pub fn tipo_impuesto(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "IVA",
        2 => "ISC",
        3 => "Renta",
        4 => "Ninguno",
        5 => "IVA - Renta",
        _ => return None,
    })
}

/// iCondAnt → dDesCondAnt (D019/D020). Closed XSD enumeration `tdDesCondAnt`.
pub fn condicion_anticipo(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Anticipo Global",
        2 => "Anticipo por Ítem",
        _ => return None,
    })
}

/// iCondOpe → dDCondOpe (E601). Closed XSD enumeration `tdDCondOpe`.
pub fn condicion_operacion(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Contado",
        2 => "Crédito",
        _ => return None,
    })
}

/// iCondCred → dDCondCred (E641). Closed XSD enumeration `tdDCondCred`.
pub fn condicion_credito(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Plazo",
        2 => "Cuota",
        _ => return None,
    })
}

/// iTiPago → dDesTiPag (E606/E607), codes 1–21; 99 is free text (`None`).
///
/// Not enforced by the XSD: `tdDesTiPag` is a union of these literals and any text of 4–30
/// characters. SIFEN.md §3.4 still requires the literal for listed codes.
pub fn tipo_pago(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Efectivo",
        2 => "Cheque",
        3 => "Tarjeta de crédito",
        4 => "Tarjeta de débito",
        5 => "Transferencia",
        6 => "Giro",
        7 => "Billetera electrónica",
        8 => "Tarjeta empresarial",
        9 => "Vale",
        10 => "Retención",
        11 => "Pago por anticipo",
        12 => "Valor fiscal",
        13 => "Valor comercial",
        14 => "Compensación",
        15 => "Permuta",
        16 => "Pago bancario",
        17 => "Pago Móvil",
        18 => "Donación",
        19 => "Promoción",
        20 => "Consumo Interno",
        21 => "Pago Electrónico",
        _ => return None,
    })
}

/// iDenTarj → dDesDenTarj (E621), codes 1–6; 99 is free text (`None`).
///
/// Not enforced by the XSD: `tdDesDenTarj` is a union of these literals and any text of 4–20 characters.
pub fn denominacion_tarjeta(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Visa",
        2 => "Mastercard",
        3 => "American Express",
        4 => "Maestro",
        5 => "Panal",
        6 => "Cabal",
        _ => return None,
    })
}

/// iForProPa (E626) label: 1 POS, 2 Pago Electrónico, 9 Otro.
///
/// Display label only: the XSD has no description element for this code (MT wording).
pub fn forma_procesamiento_pago(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "POS",
        2 => "Pago Electrónico",
        9 => "Otro",
        _ => return None,
    })
}

/// iAfecIVA → dDesAfecIVA (E731/E732), codes 1–4 with the NT-010 literals.
/// Closed XSD enumeration `tdDesAfecIVA` (the MT's old "Art. 83- Ley 125/91" text is rejected).
pub fn afectacion_iva(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Gravado IVA",
        2 => "Exonerado (Art. 100 - Ley 6380/2019)",
        3 => "Exento",
        4 => "Gravado parcial (Grav- Exento)",
        _ => return None,
    })
}

/// iIndPres → dDesIndPres (E011), codes 1–6; 9 is free text (`None`).
///
/// Not enforced by the XSD: `tdDesIndPres` is a union of these literals and any text of 10–30 characters.
pub fn indicador_presencia(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Operación presencial",
        2 => "Operación electrónica",
        3 => "Operación telemarketing",
        4 => "Venta a domicilio",
        5 => "Operación bancaria",
        6 => "Operación cíclica",
        _ => return None,
    })
}

/// iNatRec (D201) label: 1 Contribuyente, 2 No contribuyente.
///
/// Display label only: the XSD has no description element for this code.
pub fn naturaleza_receptor(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Contribuyente",
        2 => "No contribuyente",
        _ => return None,
    })
}

/// iTiOpe (D202) label: 1 B2B, 2 B2C, 3 B2G, 4 B2F.
///
/// Display label only: the XSD has no description element for this code.
pub fn tipo_operacion(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "B2B",
        2 => "B2C",
        3 => "B2G",
        4 => "B2F",
        _ => return None,
    })
}

/// iTipCont / iTiContRec (D103/D205) label: 1 Persona Física, 2 Persona Jurídica.
///
/// Display label only: the XSD has no description element for this code.
pub fn tipo_contribuyente(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Persona Física",
        2 => "Persona Jurídica",
        _ => return None,
    })
}

/// cTipReg (D104, MT Tabla 1) label, codes 1–8.
///
/// Display label only: the XSD has no description element (only the pattern `[1-8]`).
pub fn tipo_regimen(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Régimen de Turismo",
        2 => "Importador",
        3 => "Exportador",
        4 => "Maquila",
        5 => "Ley N° 60/90",
        6 => "Régimen del Pequeño Productor",
        7 => "Régimen del Mediano Productor",
        8 => "Régimen Contable",
        _ => return None,
    })
}

/// iTipIDRec → dDTipIDRec (D208/D209), codes 1–6; 9 is free text (`None`).
///
/// Not enforced by the XSD for the receiver: `tdDtipDocRec` is a union of these literals and any
/// text of 9–41 characters. For the AFE seller and the carrier use [`tipo_documento_identidad_vendedor`].
pub fn tipo_documento_identidad(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Cédula paraguaya",
        2 => "Pasaporte",
        3 => "Cédula extranjera",
        4 => "Carnet de residencia",
        5 => "Innominado",
        6 => "Tarjeta Diplomática de exoneración fiscal",
        _ => return None,
    })
}

/// iTipIDVen / iTipIDTrans → dDTipIDVen / dDTipIDTrans (AFE seller, carrier), codes 1–4.
/// Closed XSD enumeration `tdDtipDoc` (no 5, 6 or free text here).
pub fn tipo_documento_identidad_vendedor(code: u8) -> Option<&'static str> {
    match code {
        1..=4 => tipo_documento_identidad(code),
        _ => None,
    }
}

/// iMotEmi → dDesMotEmi (E401/E402, credit/debit notes), codes 1–8. Closed XSD enumeration `tdDesMotEmi`.
pub fn motivo_nota(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Devolución y Ajuste de precios",
        2 => "Devolución",
        3 => "Descuento",
        4 => "Bonificación",
        5 => "Crédito incobrable",
        6 => "Recupero de costo",
        7 => "Recupero de gasto",
        8 => "Ajuste de precio",
        _ => return None,
    })
}

/// iMotEmiNR → dDesMotEmiNR (E501/E502, remission notes), codes 1–14; 99 is free text (`None`).
///
/// Not enforced by the XSD: `tdDMotivTras` is a union of these literals and free text.
pub fn motivo_remision(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Traslado por ventas",
        2 => "Traslado por consignación",
        3 => "Exportación",
        4 => "Traslado por compra",
        5 => "Importación",
        6 => "Traslado por devolución",
        7 => "Traslado entre locales de la empresa",
        8 => "Traslado de bienes por transformación",
        9 => "Traslado de bienes para reparación",
        10 => "Traslado por emisor móvil",
        11 => "Exhibición o Demostración",
        12 => "Participación en ferias",
        13 => "Traslado de encomienda",
        14 => "Decomiso",
        _ => return None,
    })
}

/// iRespEmiNR → dDesRespEmiNR, codes 1–5.
/// Closed XSD enumeration (`tdDesRespEmiNR` is a union whose only member is this list).
pub fn responsable_remision(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Emisor de la factura",
        2 => "Poseedor de la factura y bienes",
        3 => "Empresa transportista",
        4 => "Despachante de Aduanas",
        5 => "Agente de transporte o intermediario",
        _ => return None,
    })
}

/// iNatVen → dDesNatVen (E301, AFE seller). Closed XSD enumeration `tdDesNatVen`.
pub fn naturaleza_vendedor(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "No contribuyente",
        2 => "Extranjero",
        _ => return None,
    })
}

/// iCarCarga → dDesCarCarga (gCamCarg): 1 and 2; 3 is free text (`None`).
///
/// Not enforced by the XSD: the element type is a union of these literals and any text of 1–50 characters.
pub fn caracteristica_carga(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Mercaderías con cadena de frío",
        2 => "Carga peligrosa",
        _ => return None,
    })
}

/// cRelMerc → dDesRelMerc (item). Closed XSD enumeration `tdDesRelMerc`.
pub fn relacion_mercaderia(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Tolerancia de quiebra",
        2 => "Tolerancia de merma",
        _ => return None,
    })
}

/// iTipDocAso → dDesTipDocAso (H002/H003). Closed XSD enumeration `tdDesTipDocAso`.
pub fn tipo_documento_asociado(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Electrónico",
        2 => "Impreso",
        3 => "Constancia Electrónica",
        _ => return None,
    })
}

/// iTipoDocAso → dDTipoDocAso (H009, pre-printed document). Closed XSD enumeration `tdDesTIpoDoc`.
pub fn tipo_documento_impreso(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Factura",
        2 => "Nota de crédito",
        3 => "Nota de débito",
        4 => "Nota de remisión",
        _ => return None,
    })
}

/// iTipCons → dDesTipCons (H014). Closed XSD enumeration `tdDesTipCons`.
pub fn tipo_constancia(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Constancia de no ser contribuyente",
        2 => "Constancia de microproductores",
        _ => return None,
    })
}

/// iTipTrans → dDesTipTrans (gTransp). Closed XSD enumeration `tdDesTTrans`.
pub fn tipo_transporte(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Propio",
        2 => "Tercero",
        _ => return None,
    })
}

/// iModTrans → dDesModTrans (gTransp). Closed XSD enumeration `tdDesModTrans`.
pub fn modalidad_transporte(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Terrestre",
        2 => "Fluvial",
        3 => "Aéreo",
        4 => "Multimodal",
        _ => return None,
    })
}

/// iRespFlete (gTransp) label, codes 1–5.
///
/// Display label only: the XSD has no description element; the texts are the XSD's comments.
pub fn responsable_flete(code: u8) -> Option<&'static str> {
    Some(match code {
        1 => "Emisor de la Factura Electrónica",
        2 => "Receptor de la Factura Electrónica",
        3 => "Tercero",
        4 => "Agente intermediario del transporte",
        5 => "Transporte propio",
        _ => return None,
    })
}

/// cCondNeg (gTransp) Incoterm → its XSD documentation text (e.g. `FOB` → `Franco a bordo`).
///
/// The code list is a closed XSD enumeration (`tcCondNeg`); there is no description element,
/// so the text is for display only.
#[inline(always)] // a caller that only asks whether the code exists links no text
#[allow(clippy::manual_map)]
pub fn incoterm(code: &str) -> Option<&'static str> {
    // A match, not `Option::map`: its closure would be a function of its own that always reads the text.
    match xsd::INCOTERMS.indice(code) {
        Some(i) => Some(xsd::INCOTERMS_TEXTOS.texto(i)),
        None => None,
    }
}

/// cDep* → dDesDep* (departments 1–20). Closed XSD enumeration `tDesDepartamento`, upper case, no accents.
pub fn departamento(code: u8) -> Option<&'static str> {
    xsd::DEPARTAMENTOS
        .get(usize::from(code).checked_sub(1)?)
        .copied()
}

/// cUniMed → dDesUniMed (E709/E710): the unit symbol, e.g. 77 → `UNI`, 87 → `m`.
/// Closed XSD enumerations (`tcUniMed`, `tdDesUniMed`; 64 codes, case matters).
pub fn unidad_medida(code: u16) -> Option<&'static str> {
    let i = xsd::UNIDADES.binary_search_by_key(&code, |u| u.0).ok()?;
    xsd::UNIDADES.get(i).map(|u| u.1)
}

/// cUniMed → the unit's long name, e.g. 77 → `Unidad` (for the KuDE; not an XML value).
pub fn unidad_medida_nombre(code: u16) -> Option<&'static str> {
    let i = xsd::UNIDADES.binary_search_by_key(&code, |u| u.0).ok()?;
    xsd::UNIDADES.get(i).map(|u| u.2)
}

/// ISO 4217 alpha-3 → the currency `CodeName` of Monedas_v150.xsd (`PYG` → `Guarani`, `USD` → `US Dollar`).
///
/// The code list is closed (200 codes); the description (dDesMoneOpe, dDMoneTiPag, dDMoneCuo) is
/// free text of 3–20 characters in the XSD, so this name is the safe value — except that 15 exotic
/// names are longer than 20 characters (e.g. `XTS`), which the caller must reject or shorten.
#[inline(always)] // a caller that only asks whether the code exists links no text
#[allow(clippy::manual_map)]
pub fn moneda(code: &str) -> Option<&'static str> {
    // A match, not `Option::map`: its closure would be a function of its own that always reads the text.
    match xsd::MONEDAS.indice(code) {
        Some(i) => Some(xsd::MONEDAS_TEXTOS.texto(i)),
        None => None,
    }
}

/// Decimal places used for amounts in a currency: 0 for PYG, 2 for every other currency.
pub fn moneda_decimales(code: &str) -> u32 {
    if code == "PYG" {
        0
    } else {
        2
    }
}

/// ISO 3166 alpha-3 → the Spanish country name of Paises_v100.xsd (`PRY` → `Paraguay`).
///
/// The code list is closed (249 codes, plus `NN` "NO EXISTE"); the description (dDesPais*) is free
/// text of 4–50 characters in the XSD, so this name is the safe value. Where the XSD lists `MKD`
/// twice, the first name (`Macedonia del Norte`) is returned.
#[inline(always)] // a caller that only asks whether the code exists links no text
#[allow(clippy::manual_map)]
pub fn pais(code: &str) -> Option<&'static str> {
    // A match, not `Option::map`: its closure would be a function of its own that always reads the text.
    match xsd::PAISES.indice(code) {
        Some(i) => Some(xsd::PAISES_TEXTOS.texto(i)),
        None => None,
    }
}

/// A generated code list (codes/xsd.rs): its codes sorted, each padded with spaces to `ancho` bytes, one
/// after another in `codigos`. Its texts are a [`Textos`] of their own (`*_TEXTOS`), so a build that only checks
/// codes (request validation in `kuatia/validate`) does not link them.
pub(super) struct Lista {
    /// Bytes per code in `codigos`.
    ancho: usize,
    /// The codes, sorted, right-padded with spaces.
    codigos: &'static str,
}

/// The texts of a [`Lista`]'s entries, one after another in `textos`, entry `i` ending at byte `fines[i]`. One
/// text per list instead of a `&str` pair per entry keeps the WebAssembly package smaller.
pub(super) struct Textos {
    /// End offset in `textos` of each entry's text.
    fines: &'static [u16],
    /// The texts in code order.
    textos: &'static str,
}

impl Lista {
    /// Number of entries.
    fn len(&self) -> usize {
        self.codigos.len() / self.ancho.max(1)
    }

    /// The code of entry `i`.
    fn codigo(&self, i: usize) -> &'static str {
        let desde = i * self.ancho;
        let code = self.codigos.get(desde..desde + self.ancho);
        code.unwrap_or_default().trim_end()
    }

    /// The entry of `code`, by binary search.
    fn indice(&self, code: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.codigo(mid).cmp(code) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

impl Textos {
    /// The text of entry `i` (empty past the end: not an `Option`, so a caller that only asks whether a code
    /// exists compiles to the code search alone).
    #[inline(always)]
    fn texto(&self, i: usize) -> &'static str {
        let desde = i.checked_sub(1).and_then(|p| self.fines.get(p));
        let desde = desde.map_or(0, |d| usize::from(*d));
        let hasta = self.fines.get(i).map_or(desde, |h| usize::from(*h));
        self.textos.get(desde..hasta).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tables_are_sorted_for_binary_search() {
        assert!(xsd::UNIDADES.windows(2).all(|w| w[0].0 < w[1].0));
        for (lista, textos) in [
            (&xsd::MONEDAS, &xsd::MONEDAS_TEXTOS),
            (&xsd::PAISES, &xsd::PAISES_TEXTOS),
            (&xsd::INCOTERMS, &xsd::INCOTERMS_TEXTOS),
        ] {
            let n = lista.len();
            assert_eq!(lista.codigos.len(), n * lista.ancho);
            assert_eq!(textos.fines.len(), n);
            assert!((1..n).all(|i| lista.codigo(i - 1) < lista.codigo(i)));
            assert!(textos.fines.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(
                textos.fines.last().map(|f| usize::from(*f)),
                Some(textos.textos.len())
            );
            for i in 0..n {
                let code = lista.codigo(i);
                assert!(!code.is_empty() && !code.contains(' '));
                assert_eq!(lista.indice(code), Some(i));
                assert!(!textos.texto(i).is_empty(), "{code}");
            }
            let last = lista.codigo(n - 1);
            assert_eq!(lista.indice(&format!("{last}Z")), None);
            assert_eq!(lista.indice(""), None);
            assert_eq!(textos.texto(n), "");
        }
    }

    #[test]
    fn departamento_bounds() {
        assert_eq!(departamento(0), None);
        assert_eq!(departamento(1), Some("CAPITAL"));
        assert_eq!(departamento(20), Some("NUEVA ASUNCION"));
        assert_eq!(departamento(21), None);
    }
}
