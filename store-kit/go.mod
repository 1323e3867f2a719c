module github.com/devworkwire/devworkwire/store-kit

go 1.26

require github.com/devworkwire/devworkwire/core v0.0.0-00010101000000-000000000000

replace github.com/devworkwire/devworkwire/core => ../core
