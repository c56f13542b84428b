package dev.kuatia;

import com.sun.jna.IntegerType;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.ByteByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The C functions of {@code include/kuatia.h}, one method per function with the same name, so the binding
 * parity check ({@code tools/binding_parity.py}) can find each one. Package-private: users call {@link Kuatia}.
 *
 * <p>Type mapping: {@code const uint8_t *} inputs are native {@link Pointer}s (never a Java array, so an empty
 * string is a valid pointer, not NULL); {@code size_t} is {@link SizeT}; C {@code bool} results are {@code byte}
 * (JNA's {@code boolean} is a 32-bit int, and only the low byte of a C {@code bool} return is defined); status and
 * format and outcome enums are {@code int}; {@code uint16_t} is {@code short}.
 */
interface KuatiaLibrary extends Library {

    /** {@code size_t}, as wide as the platform's. */
    final class SizeT extends IntegerType {
        private static final long serialVersionUID = 1L;

        /** Zero; JNA needs a no-argument constructor for results. */
        public SizeT() {
            this(0);
        }

        /** The given (non-negative) value. */
        public SizeT(long value) {
            super(Native.SIZE_T_SIZE, value, true);
        }
    }

    /** {@code kuatia_bytes}: an owned buffer of {@code len} bytes (plus a NUL) freed with {@code kuatia_bytes_free}. */
    @Structure.FieldOrder({"ptr", "len"})
    final class Bytes extends Structure {
        /** First byte; NULL when empty or freed. */
        public Pointer ptr;
        /** Number of bytes, not counting the trailing NUL. */
        public SizeT len = new SizeT();
    }

    Pointer kuatia_version();

    void kuatia_bytes_free(Bytes bytes);

    void kuatia_error_free(Pointer err);

    int kuatia_error_status(Pointer err);

    Pointer kuatia_error_code(Pointer err);

    Pointer kuatia_error_message(Pointer err);

    Pointer kuatia_error_path(Pointer err);

    SizeT kuatia_error_count(Pointer err);

    byte kuatia_error_finding(Pointer err, SizeT index, PointerByReference code, PointerByReference path,
            PointerByReference message);

    Pointer kuatia_error_json(Pointer err);

    int kuatia_ruc_dv(Pointer body, SizeT bodyLen, ByteByReference outDv, PointerByReference err);

    int kuatia_ruc_check(Pointer ruc, SizeT rucLen, PointerByReference err);

    int kuatia_cdc_build(Pointer fieldsJson, SizeT fieldsLen, Bytes outCdc, PointerByReference err);

    int kuatia_cdc_parse(Pointer cdc, SizeT cdcLen, Bytes outJson, PointerByReference err);

    int kuatia_error_codes(Bytes outJson, PointerByReference err);

    int kuatia_invoice_validate(Pointer requestJson, SizeT requestLen, Pointer profileJson, SizeT profileLen,
            Pointer now, SizeT nowLen, Bytes outReport, PointerByReference err);

    int kuatia_invoice_totals(Pointer requestJson, SizeT requestLen, Bytes outJson, PointerByReference err);

    int kuatia_invoice_numbering_key(Pointer requestJson, SizeT requestLen, Pointer profileJson, SizeT profileLen,
            Pointer now, SizeT nowLen, Bytes outJson, PointerByReference err);

    int kuatia_invoice_preview_xml(Pointer requestJson, SizeT requestLen, Pointer profileJson, SizeT profileLen,
            Pointer now, SizeT nowLen, int numero, int codigoSeguridad, Bytes outXml, PointerByReference err);

    int kuatia_invoice_issue(Pointer requestJson, SizeT requestLen, Pointer profileJson, SizeT profileLen,
            Pointer signer, Pointer now, SizeT nowLen, int numero, int codigoSeguridad, Bytes outXml,
            Bytes outJson, PointerByReference err);

    int kuatia_kude_pdf(Pointer xml, SizeT xmlLen, int format, byte preview, Bytes outPdf, PointerByReference err);

    int kuatia_sifen_request(Pointer kind, SizeT kindLen, Pointer arg, SizeT argLen, long dId, byte production,
            Bytes outJson, PointerByReference err);

    int kuatia_sifen_event_sign(Pointer eventJson, SizeT eventLen, Pointer firmanteRuc, SizeT rucLen, Pointer signer,
            Bytes outJson, PointerByReference err);

    int kuatia_sifen_parse_response(Pointer bytes, SizeT len, Bytes outJson, PointerByReference err);

    int kuatia_sifen_describe(Pointer code, SizeT len, Bytes outJson, PointerByReference err);

    int kuatia_qr_build(Pointer fieldsJson, SizeT fieldsLen, Bytes outQr, PointerByReference err);

    int kuatia_qr_parse(Pointer dcarqr, SizeT dcarqrLen, Pointer csc, SizeT cscLen, Bytes outJson,
            PointerByReference err);

    int kuatia_signer_from_p12(Pointer p12, SizeT p12Len, Pointer password, SizeT passwordLen,
            PointerByReference outSigner, PointerByReference err);

    int kuatia_signer_from_pem(Pointer keyPem, SizeT keyLen, Pointer certPem, SizeT certLen,
            PointerByReference outSigner, PointerByReference err);

    int kuatia_signer_sandbox(PointerByReference outSigner, PointerByReference err);

    void kuatia_signer_free(Pointer signer);

    int kuatia_xml_sign(Pointer xml, SizeT xmlLen, Pointer id, SizeT idLen, Pointer signer, Bytes outXml,
            PointerByReference err);

    int kuatia_xml_verify(Pointer xml, SizeT xmlLen, Pointer at, SizeT atLen, ByteByReference outValid,
            Bytes outReport, PointerByReference err);

    int kuatia_service_new(Pointer configJson, SizeT configLen, PointerByReference outService,
            PointerByReference err);

    void kuatia_service_free(Pointer svc);

    int kuatia_service_create_account(Pointer svc, Pointer name, SizeT nameLen, long nowUnix, Pointer seed,
            SizeT seedLen, Bytes outJson, PointerByReference err);

    int kuatia_service_create_key(Pointer svc, Pointer accountId, SizeT accountIdLen, byte live, long nowUnix,
            Pointer seed, SizeT seedLen, Bytes outKey, PointerByReference err);

    int kuatia_service_handle(Pointer svc, Pointer requestJson, SizeT requestLen, Pointer body, SizeT bodyLen,
            long nowUnix, Pointer seed, SizeT seedLen, Pointer sandboxSigner, Pointer productionSigner,
            Bytes outHead, Bytes outBody, PointerByReference err);

    int kuatia_service_tick(Pointer svc, long nowUnix, Pointer seed, SizeT seedLen, PointerByReference err);

    int kuatia_service_due_deliveries(Pointer svc, long nowUnix, Bytes outJson, PointerByReference err);

    int kuatia_service_report_delivery(Pointer svc, Pointer deliveryId, SizeT deliveryIdLen, byte ok,
            Bytes outJson, PointerByReference err);

    int kuatia_service_set_production_profile(Pointer svc, Pointer accountId, SizeT accountIdLen,
            Pointer profileJson, SizeT profileLen, PointerByReference err);

    int kuatia_service_due_sifen(Pointer svc, long nowUnix, Pointer seed, SizeT seedLen, SizeT limit,
            Bytes outJson, PointerByReference err);

    int kuatia_service_report_sifen(Pointer svc, Pointer jobJson, SizeT jobLen, int outcome, short httpStatus,
            Pointer body, SizeT bodyLen, Pointer message, SizeT messageLen, long nowUnix, Pointer seed,
            SizeT seedLen, Bytes outJson, PointerByReference err);
}
