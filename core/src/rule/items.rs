//! Rules of the items. Catalogs: `core/locales/<lang>/items.ftl`.

rules! {
    /// The request has no item.
    items_required / ITEMS_REQUIRED = "items.required" => REQUIRED {};
    /// The request has more items than SIFEN accepts (999).
    items_too_many / ITEMS_TOO_MANY = "items.too_many" => TOO_LARGE { count: Int = "1000" };
    /// An item of a document with values lacks its unit price.
    items_precio_required / ITEMS_PRECIO_REQUIRED = "items.precio.required" => REQUIRED {};
    /// An item's price × quantity has more than 15 integer digits (`dTotBruOpeItem`).
    items_precio_total_digits / ITEMS_PRECIO_TOTAL_DIGITS = "items.precio.total_digits" => OUT_OF_RANGE {};
    /// An item's discount per unit exceeds its unit price.
    items_descuento_exceeds / ITEMS_DESCUENTO_EXCEEDS = "items.descuento.exceeds" => OUT_OF_RANGE {};
}
