package kuatia

/*
#include <kuatia.h>
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
)

// ErrClosed is returned when a closed Signer is used.
var ErrClosed = errors.New("kuatia: signer is closed")

// Signer is a signing key and its certificate (kuatia_signer). It may be used by any number of goroutines at
// once; Close frees it (after the calls in flight return), and a finalizer frees it if Close is forgotten.
type Signer struct {
	mu  sync.RWMutex // read-held by each call, write-held by Close: the handle is never freed under a call
	ptr *C.kuatia_signer
}

func newSigner(ptr *C.kuatia_signer) *Signer {
	s := &Signer{ptr: ptr}
	runtime.SetFinalizer(s, (*Signer).Close)
	return s
}

// SignerFromP12 loads a PKCS#12 (.p12/.pfx) key and certificate. It fails with StatusSignError and codes
// P12_INVALID, P12_WRONG_PASSWORD, KEY_UNSUPPORTED, ...; the password is never part of the error.
func SignerFromP12(p12 []byte, password string) (*Signer, error) {
	var out *C.kuatia_signer
	var cerr *C.kuatia_error
	dp, dn := in(p12)
	pw := []byte(password)
	pp, pn := in(pw)
	st := C.kuatia_signer_from_p12(dp, dn, pp, pn, &out, &cerr)
	clear(pw) // the library keeps no copy; neither does this binding
	if err := errorOf(st, cerr); err != nil {
		return nil, err
	}
	return newSigner(out), nil
}

// SignerFromPEM loads an unencrypted PEM private key and a PEM certificate.
func SignerFromPEM(keyPEM, certPEM []byte) (*Signer, error) {
	var out *C.kuatia_signer
	var cerr *C.kuatia_error
	kp, kn := in(keyPEM)
	cp, cn := in(certPEM)
	if err := errorOf(C.kuatia_signer_from_pem(kp, kn, cp, cn, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	return newSigner(out), nil
}

// SandboxSigner is TEST ONLY: the public sandbox key and self-signed certificate (SIFEN rejects its signatures).
func SandboxSigner() (*Signer, error) {
	var out *C.kuatia_signer
	var cerr *C.kuatia_error
	if err := errorOf(C.kuatia_signer_sandbox(&out, &cerr), cerr); err != nil {
		return nil, err
	}
	return newSigner(out), nil
}

// Close frees the key (the library wipes it). It waits for calls in flight and may be called more than once.
func (s *Signer) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr != nil {
		C.kuatia_signer_free(s.ptr)
		s.ptr = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// use runs fn with the live handle, holding the signer open (and reachable, so the finalizer waits) meanwhile.
func (s *Signer) use(fn func(*C.kuatia_signer) error) error {
	if s == nil {
		return ErrClosed
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.ptr == nil {
		return ErrClosed
	}
	err := fn(s.ptr)
	runtime.KeepAlive(s)
	return err
}

// Sign signs the element of xml whose Id attribute is id (enveloped XMLDSig, RSA-SHA256, exclusive C14N) and
// returns the document with its Signature.
func (s *Signer) Sign(xml, id string) (string, error) {
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_signer) error {
		var cerr *C.kuatia_error
		xp, xn := in([]byte(xml))
		ip, iN := in([]byte(id))
		return errorOf(C.kuatia_xml_sign(xp, xn, ip, iN, h, &out, &cerr), cerr)
	})
	if err != nil {
		return "", err
	}
	return string(take(&out)), nil
}
