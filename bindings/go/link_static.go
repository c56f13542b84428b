//go:build kuatia_static

package kuatia

// Links libkuatia.a into the Go binary (go build -tags kuatia_static): no shared library to ship. The system
// libraries are the ones `cargo rustc -p kuatia-ffi --lib -- --print native-static-libs` lists on Linux.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -l:libkuatia.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
*/
import "C"
