// Which build of gocraft/work wrote a namespace, told from what it left.
// v0.5.1 (the last tag), master (seven commits later, never tagged) and the
// gojek/work fork (master's keys and JSON) share the key layout; master and
// gojek add `unique_key` to unique jobs and keep the whole job in the unique
// key, which changes what a stand-in in a queue or in-progress list
// means. Harbor's job service runs v0.5.1 and adds keys of its own.

package model

import "strings"

// The variants a namespace can be told to be.
const (
	// VariantGocraft: gocraft/work's layout, and nothing that tells the
	// build apart (no unique job seen, no key of Harbor's).
	VariantGocraft = "gocraft"
	// VariantV051: a unique job without `unique_key`, as v0.5.1 writes.
	VariantV051 = "v0.5.1"
	// VariantMaster: a `unique_key` field in a job, or a unique key that
	// holds a job: gocraft/work master or gojek/work (which do not differ
	// in Redis).
	VariantMaster = "master-or-gojek"
	// VariantHarbor: Harbor's job service (gocraft/work v0.5.1 with keys
	// of its own: period:policies, job_stats:<id>, ...).
	VariantHarbor = "harbor"
	// VariantOther: keys under the namespace, but not gocraft/work's
	// layout.
	VariantOther = "other-layout"
	// VariantEmpty: no key under the namespace.
	VariantEmpty = "empty"
)

// Variant is what a namespace was told to be, with the evidence.
type Variant struct {
	Name     string   `json:"name"`
	Evidence []string `json:"evidence"`
}

// Said reports whether the variant is worth saying: one that changes how
// the namespace reads (master, Harbor, another layout). A plain gocraft/work
// namespace is said as before, with no variant.
func (v *Variant) Said() bool {
	return v != nil && (v.Name == VariantMaster || v.Name == VariantHarbor || v.Name == VariantOther)
}

// VariantEvidence is what the reads found.
type VariantEvidence struct {
	// Gocraft: the snapshot saw gocraft/work keys (not EmptyNamespace).
	Gocraft bool
	// UniqueKeyField names where a job with `unique_key` was seen;
	// NoUniqueKeyField where a unique job without one was.
	UniqueKeyField, NoUniqueKeyField string
	// UniqueValueJob names a unique key holding a job.
	UniqueValueJob string
	// HarborKeys are Harbor's keys found.
	HarborKeys []string
	// OtherKeys are keys found under the namespace when it holds no
	// gocraft/work key.
	OtherKeys []string
}

// JudgeVariant tells the variant from the evidence.
func JudgeVariant(ev VariantEvidence) Variant {
	switch {
	case !ev.Gocraft && len(ev.OtherKeys) > 0:
		return Variant{Name: VariantOther, Evidence: []string{"keys under the namespace, none of gocraft/work's: " + strings.Join(ev.OtherKeys, ", ")}}
	case !ev.Gocraft && len(ev.HarborKeys) == 0:
		return Variant{Name: VariantEmpty, Evidence: []string{}}
	case len(ev.HarborKeys) > 0:
		return Variant{Name: VariantHarbor, Evidence: []string{"Harbor's keys: " + strings.Join(ev.HarborKeys, ", ")}}
	case ev.UniqueKeyField != "" || ev.UniqueValueJob != "":
		v := Variant{Name: VariantMaster}
		if ev.UniqueKeyField != "" {
			v.Evidence = append(v.Evidence, "a job with unique_key in "+ev.UniqueKeyField)
		}
		if ev.UniqueValueJob != "" {
			v.Evidence = append(v.Evidence, "unique key "+ev.UniqueValueJob+" holds a job")
		}
		return v
	case ev.NoUniqueKeyField != "":
		return Variant{Name: VariantV051, Evidence: []string{"a unique job without unique_key in " + ev.NoUniqueKeyField}}
	}
	return Variant{Name: VariantGocraft, Evidence: []string{}}
}

// VariantFinding is the finding of a variant worth saying (see Said);
// false for the others.
func VariantFinding(namespace string, v *Variant) (Finding, bool) {
	if !v.Said() {
		return Finding{}, false
	}
	var detail string
	switch v.Name {
	case VariantMaster:
		detail = "written by gocraft/work master or gojek/work, not v0.5.1: a unique job's stand-in may stand for the job its unique key holds"
	case VariantHarbor:
		detail = "written by Harbor's job service (gocraft/work v0.5.1 with keys of its own); Harbor writes its periodic runs back into scheduled"
	case VariantOther:
		// EmptyNamespaceFinding says it.
		return Finding{}, false
	}
	return Finding{Kind: FindingVariant, Subject: namespace, Detail: detail + " (" + strings.Join(v.Evidence, "; ") + ")"}, true
}

// FindingVariant names a variant worth saying: informational, not a
// problem.
const FindingVariant = "variant"
