//! The unsigned XML of an event: `rGesEve{rEve Id=…}` with its payload element in the XSD order of
//! `Evento_v150.xsd`.

use super::{CambioTransporte, Evento, EventoInput, IdentidadReceptor, ReceptorEvento};
use crate::codes;
use crate::sifen::{elem, NAMESPACE};
use time::PrimitiveDateTime;

fn dt(out: &mut String, name: &str, t: PrimitiveDateTime) {
    elem(out, name, &crate::fmt::datetime(t));
}

fn receptor_xml(out: &mut String, r: &ReceptorEvento) {
    match r {
        ReceptorEvento::Contribuyente { nombre, ruc } => {
            elem(out, "iTipRec", "1");
            elem(out, "dNomRec", nombre);
            elem(out, "dRucRec", ruc.body());
            elem(out, "dDVRec", &ruc.dv().to_string());
        }
        ReceptorEvento::NoContribuyente {
            nombre,
            tipo_documento,
            numero,
        } => {
            elem(out, "iTipRec", "2");
            elem(out, "dNomRec", nombre);
            elem(out, "dTipIDRec", &tipo_documento.to_string());
            elem(out, "dNumID", numero);
        }
    }
}

/// Writes the payload element (XSD order of `Evento_v150.xsd`).
fn payload_xml(out: &mut String, ev: &Evento) {
    let name = ev.element();
    out.push('<');
    out.push_str(name);
    out.push('>');
    match ev {
        Evento::Cancelacion { cdc, motivo } | Evento::Disconformidad { cdc, motivo } => {
            elem(out, "Id", cdc.as_str());
            elem(out, "mOtEve", motivo);
        }
        Evento::Inutilizacion(i) => {
            elem(out, "dNumTim", &i.timbrado);
            elem(out, "dEst", &format!("{:03}", i.establecimiento));
            elem(out, "dPunExp", &format!("{:03}", i.punto));
            elem(out, "dNumIn", &format!("{:07}", i.desde));
            elem(out, "dNumFin", &format!("{:07}", i.hasta));
            elem(out, "iTiDE", &i.tipo_documento.to_string());
            elem(out, "mOtEve", &i.motivo);
            if let Some(s) = &i.serie {
                elem(out, "dSerieNum", s);
            }
        }
        Evento::Nominacion(n) => {
            elem(out, "Id", n.cdc.as_str());
            elem(out, "mOtEve", &n.motivo);
            let nat = match n.identidad {
                IdentidadReceptor::Contribuyente { .. } => "1",
                IdentidadReceptor::NoContribuyente { .. } => "2",
            };
            elem(out, "iNatRec", nat);
            elem(out, "iTiOpe", &n.tipo_operacion.to_string());
            elem(out, "cPaisRec", &n.pais);
            elem(out, "dDesPaisRe", codes::pais(&n.pais).unwrap_or_default());
            match &n.identidad {
                IdentidadReceptor::Contribuyente {
                    ruc,
                    tipo_contribuyente,
                } => {
                    elem(out, "iTiContRec", &tipo_contribuyente.to_string());
                    elem(out, "dRucRec", ruc.body());
                    elem(out, "dDVRec", &ruc.dv().to_string());
                }
                IdentidadReceptor::NoContribuyente {
                    tipo_documento,
                    numero,
                } => {
                    elem(out, "iTipIDRec", &tipo_documento.to_string());
                    elem(
                        out,
                        "dDTipIDRec",
                        codes::tipo_documento_identidad(*tipo_documento).unwrap_or_default(),
                    );
                    elem(out, "dNumIDRec", numero);
                }
            }
            elem(out, "dNomRec", &n.nombre);
            if let Some(d) = &n.direccion {
                elem(out, "dDirRec", d);
            }
            if let Some(e) = &n.email {
                elem(out, "dEmailRec", e);
            }
        }
        Evento::Transporte { cdc, cambio } => {
            elem(out, "Id", cdc.as_str());
            match cambio {
                CambioTransporte::LocalEntrega {
                    ciudad,
                    direccion,
                    numero_casa,
                } => {
                    elem(out, "dMotEv", "1");
                    if let Some(c) = crate::geo::ciudad(*ciudad) {
                        elem(out, "cDepEnt", &c.departamento.to_string());
                        elem(
                            out,
                            "dDesDepEnt",
                            codes::departamento(c.departamento).unwrap_or_default(),
                        );
                        if let Some(d) = crate::geo::distrito(c.distrito) {
                            elem(out, "cDisEnt", &d.codigo.to_string());
                            elem(out, "dDesDisEnt", d.descripcion());
                        }
                        elem(out, "cCiuEnt", &c.codigo.to_string());
                        elem(out, "dDesCiuEnt", c.descripcion());
                    }
                    elem(out, "dDirEnt", direccion);
                    elem(out, "dNumCas", &numero_casa.to_string());
                }
                CambioTransporte::Chofer { nombre, documento } => {
                    elem(out, "dMotEv", "2");
                    elem(out, "dNomChof", nombre);
                    elem(out, "dNumIDChof", documento);
                }
                CambioTransporte::Transportista {
                    nombre,
                    ruc,
                    documento,
                } => {
                    elem(out, "dMotEv", "3");
                    match ruc {
                        Some(r) => {
                            elem(out, "iNatTrans", "1");
                            elem(out, "dRucTrans", r.body());
                            elem(out, "dDVTrans", &r.dv().to_string());
                            elem(out, "dNomTrans", nombre);
                        }
                        None => {
                            elem(out, "iNatTrans", "2");
                            elem(out, "dNomTrans", nombre);
                            if let Some((t, n)) = documento {
                                elem(out, "iTipIDTrans", &t.to_string());
                                elem(
                                    out,
                                    "dDTipIDTrans",
                                    codes::tipo_documento_identidad_vendedor(*t)
                                        .unwrap_or_default(),
                                );
                                elem(out, "dNumIDTrans", n);
                            }
                        }
                    }
                }
                CambioTransporte::Vehiculo {
                    modalidad,
                    tipo,
                    marca,
                    numero_identificacion,
                    matricula,
                } => {
                    elem(out, "dMotEv", "4");
                    elem(out, "iModTrans", &modalidad.to_string());
                    elem(
                        out,
                        "dDesModTrans",
                        codes::modalidad_transporte(*modalidad).unwrap_or_default(),
                    );
                    elem(out, "dTiVehTras", tipo);
                    elem(out, "dMarVeh", marca);
                    elem(
                        out,
                        "dTipIdenVeh",
                        if matricula.is_some() { "2" } else { "1" },
                    );
                    if let Some(n) = numero_identificacion {
                        elem(out, "dNroIDVeh", n);
                    }
                    if let Some(m) = matricula {
                        elem(out, "dNroMatVeh", m);
                    }
                }
            }
        }
        Evento::NotificacionRecepcion {
            cdc,
            fecha_emision,
            fecha_recepcion,
            receptor,
            total_gs,
        } => {
            elem(out, "Id", cdc.as_str());
            dt(out, "dFecEmi", *fecha_emision);
            dt(out, "dFecRecep", *fecha_recepcion);
            receptor_xml(out, receptor);
            elem(out, "dTotalGs", &crate::fmt::dec(*total_gs));
        }
        Evento::Conformidad {
            cdc,
            parcial,
            fecha_recepcion,
        } => {
            elem(out, "Id", cdc.as_str());
            elem(out, "iTipConf", if *parcial { "2" } else { "1" });
            if let Some(f) = fecha_recepcion {
                dt(out, "dFecRecep", *f);
            }
        }
        Evento::Desconocimiento {
            cdc,
            fecha_emision,
            fecha_recepcion,
            receptor,
            motivo,
        } => {
            elem(out, "Id", cdc.as_str());
            dt(out, "dFecEmi", *fecha_emision);
            dt(out, "dFecRecep", *fecha_recepcion);
            receptor_xml(out, receptor);
            elem(out, "mOtEve", motivo);
        }
    }
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The unsigned `rGesEve` of an event (with the SIFEN namespace declared on it, as signed).
pub fn unsigned_xml(input: &EventoInput) -> String {
    let mut x = String::with_capacity(600);
    x.push_str("<rGesEve xmlns=\"");
    x.push_str(NAMESPACE);
    x.push_str("\"><rEve Id=\"");
    x.push_str(&input.id.to_string());
    x.push_str("\">");
    dt(&mut x, "dFecFirma", input.fecha_firma);
    elem(&mut x, "dVerFor", "150");
    x.push_str("<gGroupTiEvt>");
    payload_xml(&mut x, &input.evento);
    x.push_str("</gGroupTiEvt></rEve></rGesEve>");
    x
}
