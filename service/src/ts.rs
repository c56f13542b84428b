//! TypeScript declarations of the service types the WebAssembly sandbox exposes (feature `ts`, code generation only:
//! no build ships it). The WebAssembly face writes them after core's ([`kuatia_core::ts::declarations`]) into
//! `wasm/src/types.generated.d.ts`.

use kuatia_core::ts::Declaration;
use ts_rs::Config;

/// The declarations of the service API as the in-page sandbox exposes it: its settings and outbox, and the
/// resources its typed calls answer (the invoice, webhooks, deliveries, pages, the thrown `ApiError`).
pub fn declarations(cfg: &Config) -> Vec<Declaration> {
    use crate::{webhook, Invoice, Page};
    use kuatia_core::{de, lifecycle};
    vec![
        Declaration::of::<crate::Config>(cfg),
        Declaration::of::<crate::transmit::SifenMode>(cfg),
        Declaration::of::<webhook::Delivery>(cfg),
        Declaration::of::<webhook::Attempt>(cfg),
        Declaration::of::<crate::auth::Environment>(cfg),
        // The invoice resource (`InvoiceResource`) and the document parts it carries.
        Declaration::of::<Invoice>(cfg),
        Declaration::of::<lifecycle::Estado>(cfg),
        Declaration::of::<lifecycle::SifenError>(cfg),
        Declaration::of::<crate::InvoiceCancellation>(cfg),
        Declaration::of::<crate::CancellationStatus>(cfg),
        Declaration::of::<crate::InvoiceTransmission>(cfg),
        Declaration::of::<crate::InvoiceEmail>(cfg),
        Declaration::of::<crate::InvoiceEmisor>(cfg),
        Declaration::of::<crate::InvoiceTimbrado>(cfg),
        Declaration::of::<de::Coded>(cfg),
        Declaration::of::<de::ReceptorDoc>(cfg),
        Declaration::of::<de::ItemDoc>(cfg),
        Declaration::of::<de::Condicion>(cfg),
        Declaration::of::<de::PagoDoc>(cfg),
        Declaration::of::<de::TarjetaDoc>(cfg),
        Declaration::of::<de::ChequeDoc>(cfg),
        Declaration::of::<de::CreditoDoc>(cfg),
        Declaration::of::<de::CuotaDoc>(cfg),
        // Lists and their filter.
        Declaration::of::<Page<Invoice>>(cfg),
        Declaration::of::<crate::ListMeta>(cfg),
        Declaration::of::<crate::InvoiceFilter>(cfg),
        Declaration::of::<crate::ListOrder>(cfg),
        Declaration::of::<crate::Deleted>(cfg),
        // Webhooks (`Webhook`) and their delivery log (`WebhookDelivery`).
        Declaration::of::<webhook::WebhookResource>(cfg),
        Declaration::of::<lifecycle::EventKind>(cfg),
        Declaration::of::<webhook::DeliveryResource>(cfg),
        Declaration::of::<webhook::AttemptResource>(cfg),
        Declaration::of::<webhook::EventPayload>(cfg),
        Declaration::of::<webhook::EventData>(cfg),
        // What the typed calls throw.
        Declaration::of::<crate::ApiError>(cfg),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use kuatia_core::ts::{config, render};

    #[test]
    fn service_declarations_close_over_core_and_keep_timestamps_numbers() {
        let cfg = config();
        let mut decls = kuatia_core::ts::declarations(&cfg);
        decls.extend(declarations(&cfg));
        let text = render("", &decls).unwrap_or_else(|e| panic!("{e}"));
        let delivery = decls
            .iter()
            .find(|d| d.name == "SandboxDelivery")
            .map(|d| d.text.clone())
            .unwrap_or_else(|| panic!("SandboxDelivery not declared in\n{text}"));
        assert!(delivery.contains("next_attempt_at: number,"), "{delivery}");
    }

    #[test]
    fn the_invoice_declares_its_true_shape_under_its_public_name() {
        let cfg = config();
        // `Invoice` writes its own JSON: its declaration is its shape's, under the name users import.
        let shape = Declaration::of::<crate::Invoice>(&cfg);
        assert_eq!(shape.name, "InvoiceResource");
        for member in [
            "status: Estado,",
            "sifen_errors?: Array<SifenError>,",
            "cancellation?: InvoiceCancellation,",
            "items?: Array<ItemDoc>,",
            "receptor?: ReceptorDoc,",
            "tipo_cambio?: string | null,",
            "totales?: Totales | null,",
            "xml_url: string | null,",
        ] {
            assert!(shape.text.contains(member), "{member} in\n{}", shape.text);
        }
    }
}
