// Package fakeprovider is an in-memory twin of core.WorkItemProvider for
// tests. It behaves like the tracker port promises (and passes
// core/providertest), and lets a test script the world around it: fail the
// test on any write (to prove previews and reads write nothing), inject
// failures per call or per created item, lose a create's response
// ("created, but the outcome is unknown"), delay search visibility, edit
// items or change their status "as a person would", link items, and count
// every call.
package fakeprovider
