// Command mockjira runs the fake Jira Cloud site of package jiratest as a
// process (for the end-to-end suite, benchmarks and the demo).
//
//	mockjira -addr 127.0.0.1:0 [-project KEY] [-email E] [-token T]
//	         [-field-name NAME] [-latency 50ms] [-search-lag 0s]
//	         [-rate-limit 0] [-seed file.json] [-faults file.json]
//	         [-duplicate-field-name] [-v]
//
// The first line on stdout is MOCKJIRA_URL=http://HOST:PORT; logs go to
// stderr. The token may also come from $MOCKJIRA_TOKEN. SIGTERM or SIGINT
// stops it cleanly (exit 0).
package main
