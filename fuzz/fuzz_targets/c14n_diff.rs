//! Differential: our exclusive C14N (`sign::c14n::canonicalize_element`, the one signature digests use) against
//! libxml2's `xmlC14NDocDumpMemory` (exclusive 1.0, no comments) on the same XML. The input's root element carries
//! `Id="r"`; when both parsers accept the document, both canonical forms must be the same bytes.
//!
//! libxml2 is linked in this fuzz crate only (fuzz/build.rs; Debian `libxml2-dev`), never in kuatia: a subprocess
//! per input (`xmllint --exc-c14n`) would run a few hundred inputs a second, in-process libxml2 runs thousands.
//! Skipped: inputs either side refuses (we refuse DTDs, libxml2 is stricter about some characters than quick-xml),
//! and documents with processing instructions, which libxml2 also prints around the root element.
#![no_main]

use kuatia_core::sign::c14n::{canonicalize_element, Method};
use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, c_int, c_void};

#[allow(non_camel_case_types)]
type xmlDocPtr = *mut c_void;

const XML_PARSE_NOERROR: c_int = 1 << 5;
const XML_PARSE_NOWARNING: c_int = 1 << 6;
const XML_PARSE_NONET: c_int = 1 << 11;
const XML_C14N_EXCLUSIVE_1_0: c_int = 1;

#[link(name = "xml2")]
extern "C" {
    fn xmlReadMemory(
        buffer: *const c_char,
        size: c_int,
        url: *const c_char,
        encoding: *const c_char,
        options: c_int,
    ) -> xmlDocPtr;
    fn xmlFreeDoc(doc: xmlDocPtr);
    fn xmlDocGetRootElement(doc: xmlDocPtr) -> *mut c_void;
    fn xmlGetNoNsProp(node: *mut c_void, name: *const u8) -> *mut u8;
    fn xmlC14NDocDumpMemory(
        doc: xmlDocPtr,
        nodes: *mut c_void,
        mode: c_int,
        prefixes: *mut *mut u8,
        with_comments: c_int,
        out: *mut *mut u8,
    ) -> c_int;
    static xmlFree: unsafe extern "C" fn(*mut c_void);
}

/// libxml2's exclusive C14N of `xml`, `None` when it does not parse, the root has no `Id="r"` or C14N fails.
fn libxml2_exc_c14n(xml: &str) -> Option<Vec<u8>> {
    let len = c_int::try_from(xml.len()).ok()?;
    // SAFETY: a pointer and length of live bytes; every pointer libxml2 returns is checked and freed once.
    unsafe {
        let doc = xmlReadMemory(
            xml.as_ptr().cast(),
            len,
            std::ptr::null(),
            c"UTF-8".as_ptr(),
            XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING,
        );
        if doc.is_null() {
            return None;
        }
        let root = xmlDocGetRootElement(doc);
        let id = if root.is_null() {
            std::ptr::null_mut()
        } else {
            xmlGetNoNsProp(root, c"Id".as_ptr().cast())
        };
        let root_is_r = !id.is_null() && std::ffi::CStr::from_ptr(id.cast()).to_bytes() == b"r";
        if !id.is_null() {
            xmlFree(id.cast());
        }
        let mut out: *mut u8 = std::ptr::null_mut();
        let n = if root_is_r {
            xmlC14NDocDumpMemory(
                doc,
                std::ptr::null_mut(),
                XML_C14N_EXCLUSIVE_1_0,
                std::ptr::null_mut(),
                0,
                &mut out,
            )
        } else {
            -1
        };
        let result = (n >= 0 && !out.is_null())
            .then(|| std::slice::from_raw_parts(out, usize::try_from(n).unwrap_or(0)).to_vec());
        if !out.is_null() {
            xmlFree(out.cast());
        }
        xmlFreeDoc(doc);
        result
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(xml) = std::str::from_utf8(data) else {
        return;
    };
    // Processing instructions (beyond the XML declaration) and DTDs: see the module documentation.
    let body = xml
        .strip_prefix("<?xml")
        .map_or(xml, |r| r.split_once("?>").map_or("", |(_, b)| b));
    if body.contains("<?") || body.contains("<!DOCTYPE") {
        return;
    }
    let Ok(ours) = canonicalize_element(xml, "r", &Method::EXCLUSIVE) else {
        return;
    };
    let Some(theirs) = libxml2_exc_c14n(xml) else {
        return;
    };
    assert!(
        ours == theirs,
        "exclusive C14N differs from libxml2\n input: {xml:?}\n ours:  {:?}\n libxml2: {:?}",
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&theirs)
    );
});
