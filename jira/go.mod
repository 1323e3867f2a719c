module github.com/devworkwire/devworkwire/jira

go 1.26

require (
	github.com/blevesearch/go-porterstemmer v1.0.3
	github.com/devworkwire/devworkwire/core v0.0.0-00010101000000-000000000000
	github.com/getkin/kin-openapi v0.153.0
	github.com/hbollon/go-edlib v1.7.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/yuin/goldmark v1.8.7
	pgregory.net/rapid v1.3.0
)

require (
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace github.com/devworkwire/devworkwire/core => ../core
