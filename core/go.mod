module github.com/devworkwire/devworkwire/core

go 1.26

require (
	github.com/google/go-cmp v0.7.0
	github.com/hbollon/go-edlib v1.7.0
	github.com/yuin/goldmark v1.8.7
	go.yaml.in/yaml/v3 v3.0.6
	pgregory.net/rapid v1.3.0
)
