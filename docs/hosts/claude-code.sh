claude mcp add devworkwire -e JIRA_API_TOKEN=<your Jira API token> -e DWIRE_CONFIG=/home/me/src/shop/.devworkwire.yaml -- dwire mcp
