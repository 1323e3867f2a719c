package config

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/devworkwire/devworkwire/core"
	"github.com/devworkwire/devworkwire/core/service"
)

// customNameRE is a custom field name a document's field block can hold.
var customNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9 _-]{0,39}$`)

// reservedNames are the names of the built-in fields and markers, which a
// custom field cannot take.
var reservedNames = []string{"labels", "priority", "assignee", "estimate", "components", "fix versions", "fix version", "due", "sprint", "epic", "drift", "depends on", "blocks", "key"}

// readFields reads `fields:`, `users:`, `defaults:` and
// jira.estimate_field.
func (c *Config) readFields(path string, f File) error {
	for _, name := range slices.Sorted(maps.Keys(f.Fields)) {
		id := f.Fields[name]
		n := strings.TrimSpace(name)
		switch {
		case !customNameRE.MatchString(n):
			return invalid("fields."+name, "%q is not a field name documents can write: letters, digits, spaces, _ and -, starting with a letter, at most 40 characters.", name)
		case slices.Contains(reservedNames, strings.ToLower(strings.Join(strings.Fields(n), " "))):
			return invalid("fields."+name, "%q is a built-in field (Labels, Priority, Assignee, Estimate, Components, Fix versions, Due, Sprint); declare only custom fields here, under another name.", name)
		case strings.TrimSpace(id) == "":
			return invalid("fields."+name, "names no Jira field. Set it to the field's id (customfield_NNNNN) or its name in Jira.")
		}
		if c.CustomFields == nil {
			c.CustomFields = map[string]string{}
		}
		c.CustomFields[n] = strings.TrimSpace(id)
	}
	for _, who := range slices.Sorted(maps.Keys(f.Users)) {
		acc := f.Users[who]
		if strings.TrimSpace(who) == "" || strings.TrimSpace(acc) == "" || strings.ContainsAny(strings.TrimSpace(acc), " \t") {
			return invalid("users."+who, "maps an e-mail or a name to a Jira account id (such as 5b10ac8d82e05b22cc7d4ef5 or 557058:f58131cb-b67d-43c7-b30d-6b58d40bd077); %q is not one.", acc)
		}
		if c.Users == nil {
			c.Users = map[string]string{}
		}
		c.Users[strings.TrimSpace(who)] = strings.TrimSpace(acc)
	}
	c.EstimateField = strings.TrimSpace(f.Jira.EstimateField)
	if f.Defaults.Kind == 0 {
		return nil
	}
	d, problems := service.ParseDefaults(c.CustomNames(), FileName+" `defaults:`", &f.Defaults)
	if len(problems) > 0 {
		for i, p := range problems {
			if !strings.HasPrefix(p.Field, "defaults") {
				problems[i].Field = "defaults." + p.Field
			}
		}
		return core.Errorf(core.CodeConfigInvalid, "%s: %s in defaults (see details): %s", path, core.Plural(len(problems), "problem", "problems"), problems[0].Message).WithDetails(problems...)
	}
	c.Defaults = d
	return nil
}

// CustomNames are the declared custom field names, sorted.
func (c *Config) CustomNames() []string {
	names := make([]string, 0, len(c.CustomFields))
	for n := range c.CustomFields {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
