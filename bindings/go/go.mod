module github.com/kuatia/kuatia/bindings/go

go 1.22
