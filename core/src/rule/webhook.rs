//! Rules of the service's webhook operations (kuatia-service). Catalogs: `core/locales/<lang>/webhook.ftl`.

rules! {
    /// No webhook of the caller has that id.
    webhook_not_found / WEBHOOK_NOT_FOUND = "webhook.not_found" => NOT_FOUND {};
    /// The webhook has no delivery with that id.
    webhook_delivery_not_found / WEBHOOK_DELIVERY_NOT_FOUND = "webhook.delivery.not_found" => NOT_FOUND {};
}
