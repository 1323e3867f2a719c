// Package providertest is the contract suite of core.WorkItemProvider.
// Every implementation (core/providertest/fakeprovider, the Jira adapter against the
// fake Jira) runs it from one test:
//
//	func TestContract(t *testing.T) { providertest.Run(t, newHarness) }
//
// It checks only what the port promises, through the port, plus a few
// things a person does in the tracker (edit an item, link two items),
// which the harness performs.
package providertest
