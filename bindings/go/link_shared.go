//go:build !kuatia_static

package kuatia

// Links the shared libkuatia. The default search path is the repository's target/release (build it with
// `cargo build -p kuatia-ffi --release`); point elsewhere with CGO_LDFLAGS="-L<dir> -Wl,-rpath,<dir>", which cgo
// places before these flags.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -Wl,-rpath,${SRCDIR}/../../target/release -lkuatia
*/
import "C"
