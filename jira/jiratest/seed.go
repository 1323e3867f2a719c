package jiratest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// SeedFile is the JSON a site is seeded from (mockjira -seed). Every field
// is optional.
type SeedFile struct {
	Site            string  `json:"site,omitempty"` // base URL used in "self" links
	Project         string  `json:"project,omitempty"`
	ProjectName     string  `json:"project_name,omitempty"`
	Email           string  `json:"email,omitempty"`
	Token           string  `json:"token,omitempty"`
	FieldName       string  `json:"field_name,omitempty"`
	FieldID         string  `json:"field_id,omitempty"`
	DuplicateField  bool    `json:"duplicate_field_name,omitempty"`
	LatencyMS       int     `json:"latency_ms,omitempty"`
	SearchLagMS     int     `json:"search_lag_ms,omitempty"`
	RateLimitPerSec float64 `json:"rate_limit_per_sec,omitempty"`
	LimitConfig
	FieldSeed
	// SiteProfile: "style", "workflow", "denied_permissions",
	// "epic_name_required", "deployment" and per-project "projects"
	// (site.go), applying to every project the site serves.
	SiteProfile
	Issues []SeedIssue `json:"issues,omitempty"`
	Links  []SeedLink  `json:"links,omitempty"`
	Faults []Fault     `json:"faults,omitempty"`
}

// SeedLink is an "is blocked by" link between two seeded issues.
type SeedLink struct {
	Blocked string `json:"blocked"`
	Blocker string `json:"blocker"`
}

// LoadSeedFile reads and strictly decodes a seed file.
func LoadSeedFile(path string) (SeedFile, error) {
	var sf SeedFile
	b, err := os.ReadFile(path)
	if err != nil {
		return sf, fmt.Errorf("seed file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil {
		return sf, fmt.Errorf("seed file %s: %w", path, err)
	}
	if err := sf.SiteProfile.validate(); err != nil {
		return sf, fmt.Errorf("seed file %s: %w", path, err)
	}
	return sf, nil
}

// Options returns the server options the seed file sets.
func (sf SeedFile) Options() Options {
	return Options{
		Project: sf.Project, ProjectName: sf.ProjectName, Email: sf.Email, Token: sf.Token,
		FieldName: sf.FieldName, FieldID: sf.FieldID, BaseURL: sf.Site, DuplicateFieldName: sf.DuplicateField,
		Latency:   time.Duration(sf.LatencyMS) * time.Millisecond,
		SearchLag: time.Duration(sf.SearchLagMS) * time.Millisecond,
		RateLimit: sf.RateLimitPerSec,
		Limits:    sf.LimitConfig.apply(Limits{}),
		Style:     sf.Style, Workflow: sf.Workflow, DeniedPermissions: sf.DeniedPermissions,
		EpicNameRequired: sf.EpicNameRequired, Deployment: sf.Deployment, ProjectProfiles: sf.Projects,
	}
}

// ApplySeed creates the seed file's issues, links and faults.
func (s *Server) ApplySeed(sf SeedFile) error {
	if err := s.ApplyFields(sf.FieldSeed); err != nil {
		return err
	}
	for i, in := range sf.Issues {
		if _, err := s.Seed(in); err != nil {
			return fmt.Errorf("issue %d: %w", i+1, err)
		}
	}
	for _, l := range sf.Links {
		if err := s.Link(l.Blocked, l.Blocker); err != nil {
			return err
		}
	}
	for _, f := range sf.Faults {
		if err := s.AddFault(f); err != nil {
			return err
		}
	}
	return nil
}

// LoadFaultsFile reads a JSON array of faults (mockjira -faults).
func LoadFaultsFile(path string) ([]Fault, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faults file: %w", err)
	}
	var fs []Fault
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fs); err != nil {
		return nil, fmt.Errorf("faults file %s: %w", path, err)
	}
	for _, f := range fs {
		if err := f.validate(); err != nil {
			return nil, fmt.Errorf("faults file %s: %w", path, err)
		}
	}
	return fs, nil
}
