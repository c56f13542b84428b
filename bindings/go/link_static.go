//go:build kuatia_static

package kuatia

// Links libkuatia.a into the Go binary (go build -tags kuatia_static): no shared library to ship. pkg-config
// --static gives the include and library directories and the system libraries the archive needs (Libs.private);
// -l:libkuatia.a takes the archive, and --as-needed drops the -lkuatia that pkg-config also lists, so the binary
// does not depend on libkuatia.so.

/*
#cgo pkg-config: --static kuatia
#cgo LDFLAGS: -l:libkuatia.a -Wl,--as-needed
*/
import "C"
