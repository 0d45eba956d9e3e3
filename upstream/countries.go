package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
)

// countries.jsonl holds real facts per ISO 3166-1 code, one JSON object a line (see
// tools/gencountries); the documents served are built from it once at start.
//
//go:embed countries.jsonl
var countriesJSONL []byte

type country struct {
	CCA2         string        `json:"cca2"`
	CCA3         string        `json:"cca3"`
	CCN3         string        `json:"ccn3"`
	Flag         string        `json:"flag"`
	Common       string        `json:"common"`
	Official     string        `json:"official"`
	Capital      string        `json:"capital"`
	Region       string        `json:"region"`
	Subregion    string        `json:"subregion"`
	Currencies   []named       `json:"currencies"`
	Languages    []named       `json:"languages"`
	Timezones    []string      `json:"timezones"`
	LatLng       [2]float64    `json:"latlng"`
	NativeNames  []translation `json:"nativeNames"`
	Translations []translation `json:"translations"`
}

type named struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// translation is a country's names in one language: [lang, common] or [lang, common, official].
type translation struct {
	Lang     string
	Common   string
	Official string
}

func (t *translation) UnmarshalJSON(data []byte) error {
	var a []string
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	switch len(a) {
	case 2:
		t.Lang, t.Common, t.Official = a[0], a[1], a[1]
	case 3:
		t.Lang, t.Common, t.Official = a[0], a[1], a[2]
	default:
		return fmt.Errorf("translation %q: want [lang, common] or [lang, common, official]", a)
	}
	return nil
}

// Document sizes: translations are added, in a fixed order, while the document stays within
// targetSize, so that every document is about 3.4 KB like the restcountries.com answers the
// YARP study forwarded.
const (
	targetSize = 3500
	minSize    = 3000
	maxSize    = 3800
)

// countryDocuments returns the JSON document of every country, keyed by lower-case alpha-2 code.
func countryDocuments() (map[string][]byte, error) {
	var list []country
	dec := json.NewDecoder(bytes.NewReader(countriesJSONL))
	for {
		var c country
		if err := dec.Decode(&c); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("countries.jsonl, country %d: %w", len(list)+1, err)
		}
		list = append(list, c)
	}
	docs := make(map[string][]byte, len(list))
	for i := range list {
		doc, err := countryDocument(&list[i])
		if err != nil {
			return nil, err
		}
		docs[strings.ToLower(list[i].CCA2)] = doc
	}
	return docs, nil
}

func countryDocument(c *country) ([]byte, error) {
	base, err := marshal(c, json.RawMessage("{}"))
	if err != nil {
		return nil, fmt.Errorf("country %s: %w", c.CCA2, err)
	}
	// Add translations while the document stays within targetSize ("{}" grows by each member
	// and the commas between them).
	translations := []byte{'{'}
	size := len(base)
	for _, t := range c.Translations {
		member, err := object{{t.Lang, object{{"official", t.Official}, {"common", t.Common}}}}.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("country %s: %w", c.CCA2, err)
		}
		member = member[1 : len(member)-1]
		grow := len(member)
		if len(translations) > 1 {
			grow++
		}
		if size+grow > targetSize {
			break
		}
		if len(translations) > 1 {
			translations = append(translations, ',')
		}
		translations = append(translations, member...)
		size += grow
	}
	translations = append(translations, '}')
	doc, err := marshal(c, json.RawMessage(translations))
	if err != nil {
		return nil, fmt.Errorf("country %s: %w", c.CCA2, err)
	}
	if len(doc) < minSize || len(doc) > maxSize {
		return nil, fmt.Errorf("country %s: document of %d bytes, outside %d..%d", c.CCA2, len(doc), minSize, maxSize)
	}
	return doc, nil
}

// field is one member of a JSON object whose member order is kept.
type field struct {
	key   string
	value any
}

type object []field

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := marshalValue(f.key)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		value, err := marshalValue(f.value)
		if err != nil {
			return nil, err
		}
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func marshalValue(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// keyedObjects are a country's objects keyed by language or currency code, in the file's order.
func keyedObjects(c *country) (native, currencies, languages object) {
	native, currencies, languages = object{}, object{}, object{}
	for _, t := range c.NativeNames {
		native = append(native, field{t.Lang, object{{"official", t.Official}, {"common", t.Common}}})
	}
	for _, cur := range c.Currencies {
		currencies = append(currencies, field{cur.Code, object{{"name", cur.Name}}})
	}
	for _, l := range c.Languages {
		languages = append(languages, field{l.Code, l.Name})
	}
	return native, currencies, languages
}

// marshal builds the document of a country around its translations object. Population and area
// are synthetic (derived from the code, stable); every other field comes from countries.jsonl.
func marshal(c *country, translations json.RawMessage) ([]byte, error) {
	lower := strings.ToLower(c.CCA2)
	native, currencies, languages := keyedObjects(c)
	capital := []string{}
	if c.Capital != "" {
		capital = append(capital, c.Capital)
	}
	tld := "." + lower
	if c.CCA2 == "GB" {
		tld = ".uk"
	}
	lat, lng := c.LatLng[0], c.LatLng[1]
	h := fnv.New64a()
	h.Write([]byte(c.CCA3))
	seed := h.Sum64()
	doc := object{
		{"name", object{{"common", c.Common}, {"official", c.Official}, {"nativeName", native}}},
		{"tld", []string{tld}},
		{"cca2", c.CCA2},
		{"ccn3", c.CCN3},
		{"cca3", c.CCA3},
		{"status", "officially-assigned"},
		{"currencies", currencies},
		{"capital", capital},
		{"altSpellings", []string{c.CCA2, c.CCA3, c.Official}},
		{"region", c.Region},
		{"subregion", c.Subregion},
		{"languages", languages},
		{"translations", translations},
		{"latlng", []float64{lat, lng}},
		{"area", float64(1000 + seed%9_000_000)},
		{"flag", c.Flag},
		{"maps", object{
			{"googleMaps", fmt.Sprintf("https://www.google.com/maps/@%.2f,%.2f,5z", lat, lng)},
			{"openStreetMaps", fmt.Sprintf("https://www.openstreetmap.org/#map=5/%.2f/%.2f", lat, lng)},
		}},
		{"population", 10_000 + (seed>>24)%300_000_000},
		{"timezones", c.Timezones},
		{"continents", []string{c.Region}},
		{"flags", object{
			{"png", "https://flagcdn.com/w320/" + lower + ".png"},
			{"svg", "https://flagcdn.com/" + lower + ".svg"},
			{"alt", "The flag of " + c.Common + "."},
		}},
		{"coatOfArms", object{
			{"png", "https://mainfacts.com/media/images/coats_of_arms/" + lower + ".png"},
			{"svg", "https://mainfacts.com/media/images/coats_of_arms/" + lower + ".svg"},
		}},
		{"startOfWeek", "monday"},
		{"capitalInfo", object{{"latlng", []float64{lat, lng}}}},
	}
	return doc.MarshalJSON()
}
