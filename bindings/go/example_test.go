package kuatia_test

import (
	"errors"
	"fmt"
	"log"

	kuatia "github.com/kuatia/kuatia/bindings/go"
)

// docs/go.md's Go example (readme_test.go checks that docs/go.md shows exactly this body).
func Example() {
	// README-BEGIN
	signer, err := kuatia.SandboxSigner() // TEST ONLY: kuatia.SignerFromP12(data, password) for real documents
	if err != nil {
		log.Fatal(err)
	}
	defer signer.Close()
	request := map[string]any{
		"tipo_documento": 1,
		"receptor":       map[string]any{"ruc": "80069563-1", "razon_social": "Cliente Ejemplo S.A."},
		"items": []map[string]any{{"descripcion": "Servicio de consultoría", "cantidad": 1,
			"precio_unitario": 1100000, "iva": 10}},
	}
	now, _ := kuatia.ParaguayTime("2025-03-10T10:11:00") // zero Options.Now means time.Now()
	code, err := kuatia.RandomSecurityCode()             // dCodSeg: from a CSPRNG, never a counter
	if err != nil {
		log.Fatal(err)
	}
	doc, err := kuatia.Issue(request, signer, 1, code, &kuatia.Options{Now: now})
	if err != nil {
		var e *kuatia.Error // code, path and every finding
		if errors.As(err, &e) {
			for _, f := range e.Findings {
				log.Printf("%s at %s: %s", f.Code, f.Path, f.Message)
			}
		}
		log.Fatal(err)
	}
	fmt.Println(doc.CDC[:34], doc.Numero) // doc.XML is the signed rDE for SIFEN
	// README-END

	// Output: 0144444401700100100000012202503101 001-001-0000001
}
