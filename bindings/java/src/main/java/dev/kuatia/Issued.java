package dev.kuatia;

/**
 * An issued document: the signed {@code rDE} XML (ready for SIFEN; store these exact bytes), its CDC, its number
 * ({@code 001-001-0000001}), the {@code dCarQR} URL, the signature's digest and the emission date-time.
 */
public record Issued(String xml, String cdc, String numero, String qr, String digestValue, String fechaEmision) {}
