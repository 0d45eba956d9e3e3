// Command gencountries writes countries.jsonl, the facts the upstream's country documents are
// built from. It reads Debian's iso-codes (ISO 3166-1 codes and names, their translations,
// ISO 4217 currency and ISO 639-3 language names) and tzdata (zone.tab: time zones and
// coordinates); capitals, UN M49 subregions, currencies and languages per country are the
// tables below.
//
//	cd upstream && go run ./tools/gencountries > countries.jsonl
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const (
	isoCodes = "/usr/share/iso-codes/json"
	locales  = "/usr/share/locale"
	zoneTab  = "/usr/share/zoneinfo/zone.tab"
)

// Country is one line of countries.jsonl.
type Country struct {
	CCA2         string        `json:"cca2"`
	CCA3         string        `json:"cca3"`
	CCN3         string        `json:"ccn3"`
	Flag         string        `json:"flag"`
	Common       string        `json:"common"`
	Official     string        `json:"official"`
	Capital      string        `json:"capital,omitempty"`
	Region       string        `json:"region"`
	Subregion    string        `json:"subregion,omitempty"`
	Currencies   []Named       `json:"currencies"`
	Languages    []Named       `json:"languages"`
	Timezones    []string      `json:"timezones"`
	LatLng       [2]float64    `json:"latlng"`
	NativeNames  []Translation `json:"nativeNames"`
	Translations []Translation `json:"translations"`
}

// Named is a code with its English name (a currency, a language).
type Named struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// Translation is a country's names in one language, written as [lang, common, official], or
// [lang, common] when both names are the same.
type Translation struct {
	Lang     string
	Common   string
	Official string
}

// MarshalJSON writes the compact array form.
func (t Translation) MarshalJSON() ([]byte, error) {
	if t.Official == t.Common {
		return json.Marshal([]string{t.Lang, t.Common})
	}
	return json.Marshal([]string{t.Lang, t.Common, t.Official})
}

// The languages restcountries.com translates country names into, with the locale holding them.
var translationLocales = [][2]string{
	{"ara", "ar"}, {"bre", "br"}, {"ces", "cs"}, {"cym", "cy"}, {"deu", "de"}, {"est", "et"},
	{"fin", "fi"}, {"fra", "fr"}, {"hrv", "hr"}, {"hun", "hu"}, {"ita", "it"}, {"jpn", "ja"},
	{"kor", "ko"}, {"nld", "nl"}, {"per", "fa"}, {"pol", "pl"}, {"por", "pt"}, {"rus", "ru"},
	{"slk", "sk"}, {"spa", "es"}, {"srp", "sr"}, {"swe", "sv"}, {"tur", "tr"}, {"urd", "ur"},
	{"zho", "zh_CN"},
	// More languages, so that countries with short names reach the same document size.
	{"afr", "af"}, {"amh", "am"}, {"aze", "az"}, {"bel", "be"}, {"bul", "bg"}, {"ben", "bn"},
	{"bos", "bs"}, {"cat", "ca"}, {"dan", "da"}, {"ell", "el"}, {"epo", "eo"}, {"eus", "eu"},
	{"gle", "ga"}, {"glg", "gl"}, {"heb", "he"}, {"hin", "hi"}, {"hye", "hy"}, {"ind", "id"},
	{"isl", "is"}, {"kat", "ka"}, {"kaz", "kk"}, {"khm", "km"}, {"lit", "lt"}, {"lav", "lv"},
	{"mkd", "mk"}, {"mal", "ml"}, {"mon", "mn"}, {"msa", "ms"}, {"mlt", "mt"}, {"nob", "nb"},
	{"nep", "ne"}, {"pan", "pa"}, {"ron", "ro"}, {"sin", "si"}, {"slv", "sl"}, {"sqi", "sq"},
	{"tam", "ta"}, {"tha", "th"}, {"ukr", "uk"}, {"vie", "vi"}, {"uzb", "uz"}, {"kir", "ky"},
	{"tgk", "tg"}, {"lao", "lo"}, {"mya", "my"},
}

var subregions = map[string]string{
	"Northern Africa":           "DZ EG LY MA SD TN EH",
	"Eastern Africa":            "BI KM DJ ER ET KE MG MW MU YT MZ RE RW SC SO SS TZ UG ZM ZW IO TF",
	"Middle Africa":             "AO CM CF TD CG CD GQ GA ST",
	"Southern Africa":           "BW SZ LS NA ZA",
	"Western Africa":            "BJ BF CV CI GM GH GN GW LR ML MR NE NG SH SN SL TG",
	"Caribbean":                 "AI AG AW BS BB BQ VG KY CU CW DM DO GD GP HT JM MQ MS PR BL KN LC MF VC SX TT TC VI",
	"Central America":           "BZ CR SV GT HN MX NI PA",
	"South America":             "AR BO BV BR CL CO EC FK GF GY PY PE GS SR UY VE",
	"North America":             "BM CA GL PM US UM",
	"Central Asia":              "KZ KG TJ TM UZ",
	"Eastern Asia":              "CN HK MO KP JP MN KR TW",
	"South-Eastern Asia":        "BN KH ID LA MY MM PH SG TH TL VN",
	"Southern Asia":             "AF BD BT IN IR MV NP PK LK",
	"Western Asia":              "AM AZ BH CY GE IQ IL JO KW LB OM QA SA PS SY TR AE YE",
	"Eastern Europe":            "BY BG CZ HU PL MD RO RU SK UA",
	"Northern Europe":           "AX DK EE FO FI GG IS IE IM JE LV LT NO SJ SE GB",
	"Southern Europe":           "AL AD BA HR GI GR VA IT MT ME MK PT SM RS SI ES",
	"Western Europe":            "AT BE FR DE LI LU MC NL CH",
	"Australia and New Zealand": "AU CX CC HM NZ NF",
	"Melanesia":                 "FJ NC PG SB VU",
	"Micronesia":                "GU KI MH FM NR MP PW",
	"Polynesia":                 "AS CK PF NU PN WS TK TO TV WF",
	"":                          "AQ",
}

func regionOf(subregion string) string {
	switch {
	case subregion == "":
		return "Antarctic"
	case strings.HasSuffix(subregion, "Africa"):
		return "Africa"
	case strings.HasSuffix(subregion, "America") || subregion == "Caribbean":
		return "Americas"
	case strings.HasSuffix(subregion, "Asia"):
		return "Asia"
	case strings.HasSuffix(subregion, "Europe"):
		return "Europe"
	default:
		return "Oceania"
	}
}

const capitals = `AD:Andorra la Vella|AE:Abu Dhabi|AF:Kabul|AG:Saint John's|AI:The Valley|AL:Tirana|AM:Yerevan|
AO:Luanda|AR:Buenos Aires|AS:Pago Pago|AT:Vienna|AU:Canberra|AW:Oranjestad|AX:Mariehamn|AZ:Baku|
BA:Sarajevo|BB:Bridgetown|BD:Dhaka|BE:Brussels|BF:Ouagadougou|BG:Sofia|BH:Manama|BI:Gitega|
BJ:Porto-Novo|BL:Gustavia|BM:Hamilton|BN:Bandar Seri Begawan|BO:Sucre|BQ:Kralendijk|BR:Brasília|
BS:Nassau|BT:Thimphu|BW:Gaborone|BY:Minsk|BZ:Belmopan|CA:Ottawa|CC:West Island|CD:Kinshasa|
CF:Bangui|CG:Brazzaville|CH:Bern|CI:Yamoussoukro|CK:Avarua|CL:Santiago|CM:Yaoundé|CN:Beijing|
CO:Bogotá|CR:San José|CU:Havana|CV:Praia|CW:Willemstad|CX:Flying Fish Cove|CY:Nicosia|CZ:Prague|
DE:Berlin|DJ:Djibouti|DK:Copenhagen|DM:Roseau|DO:Santo Domingo|DZ:Algiers|EC:Quito|EE:Tallinn|
EG:Cairo|EH:El Aaiún|ER:Asmara|ES:Madrid|ET:Addis Ababa|FI:Helsinki|FJ:Suva|FK:Stanley|FM:Palikir|
FO:Tórshavn|FR:Paris|GA:Libreville|GB:London|GD:St. George's|GE:Tbilisi|GF:Cayenne|GG:St. Peter Port|
GH:Accra|GI:Gibraltar|GL:Nuuk|GM:Banjul|GN:Conakry|GP:Basse-Terre|GQ:Malabo|GR:Athens|
GS:King Edward Point|GT:Guatemala City|GU:Hagåtña|GW:Bissau|GY:Georgetown|HK:City of Victoria|
HN:Tegucigalpa|HR:Zagreb|HT:Port-au-Prince|HU:Budapest|ID:Jakarta|IE:Dublin|IL:Jerusalem|IM:Douglas|
IN:New Delhi|IO:Diego Garcia|IQ:Baghdad|IR:Tehran|IS:Reykjavik|IT:Rome|JE:Saint Helier|JM:Kingston|
JO:Amman|JP:Tokyo|KE:Nairobi|KG:Bishkek|KH:Phnom Penh|KI:South Tarawa|KM:Moroni|KN:Basseterre|
KP:Pyongyang|KR:Seoul|KW:Kuwait City|KY:George Town|KZ:Astana|LA:Vientiane|LB:Beirut|LC:Castries|
LI:Vaduz|LK:Sri Jayawardenepura Kotte|LR:Monrovia|LS:Maseru|LT:Vilnius|LU:Luxembourg|LV:Riga|
LY:Tripoli|MA:Rabat|MC:Monaco|MD:Chișinău|ME:Podgorica|MF:Marigot|MG:Antananarivo|MH:Majuro|
MK:Skopje|ML:Bamako|MM:Naypyidaw|MN:Ulaanbaatar|MP:Saipan|MQ:Fort-de-France|MR:Nouakchott|
MS:Plymouth|MT:Valletta|MU:Port Louis|MV:Malé|MW:Lilongwe|MX:Mexico City|MY:Kuala Lumpur|MZ:Maputo|
NA:Windhoek|NC:Nouméa|NE:Niamey|NF:Kingston|NG:Abuja|NI:Managua|NL:Amsterdam|NO:Oslo|NP:Kathmandu|
NR:Yaren|NU:Alofi|NZ:Wellington|OM:Muscat|PA:Panama City|PE:Lima|PF:Papeetē|PG:Port Moresby|
PH:Manila|PK:Islamabad|PL:Warsaw|PM:Saint-Pierre|PN:Adamstown|PR:San Juan|PS:Ramallah|PT:Lisbon|
PW:Ngerulmud|PY:Asunción|QA:Doha|RE:Saint-Denis|RO:Bucharest|RS:Belgrade|RU:Moscow|RW:Kigali|
SA:Riyadh|SB:Honiara|SC:Victoria|SD:Khartoum|SE:Stockholm|SG:Singapore|SH:Jamestown|SI:Ljubljana|
SJ:Longyearbyen|SK:Bratislava|SL:Freetown|SM:City of San Marino|SN:Dakar|SO:Mogadishu|SR:Paramaribo|
SS:Juba|ST:São Tomé|SV:San Salvador|SX:Philipsburg|SY:Damascus|SZ:Mbabane|TC:Cockburn Town|
TD:N'Djamena|TF:Port-aux-Français|TG:Lomé|TH:Bangkok|TJ:Dushanbe|TK:Fakaofo|TL:Dili|TM:Ashgabat|
TN:Tunis|TO:Nuku'alofa|TR:Ankara|TT:Port of Spain|TV:Funafuti|TW:Taipei|TZ:Dodoma|UA:Kyiv|
UG:Kampala|US:Washington, D.C.|UY:Montevideo|UZ:Tashkent|VA:Vatican City|VC:Kingstown|VE:Caracas|
VG:Road Town|VI:Charlotte Amalie|VN:Hanoi|VU:Port Vila|WF:Mata-Utu|WS:Apia|YE:Sana'a|YT:Mamoudzou|
ZA:Pretoria|ZM:Lusaka|ZW:Harare`

const currencies = `AD:EUR AE:AED AF:AFN AG:XCD AI:XCD AL:ALL AM:AMD AO:AOA AR:ARS AS:USD AT:EUR AU:AUD AW:AWG
AX:EUR AZ:AZN BA:BAM BB:BBD BD:BDT BE:EUR BF:XOF BG:BGN BH:BHD BI:BIF BJ:XOF BL:EUR BM:BMD BN:BND
BO:BOB BQ:USD BR:BRL BS:BSD BT:BTN BV:NOK BW:BWP BY:BYN BZ:BZD CA:CAD CC:AUD CD:CDF CF:XAF CG:XAF
CH:CHF CI:XOF CK:NZD CL:CLP CM:XAF CN:CNY CO:COP CR:CRC CU:CUP CV:CVE CW:ANG CX:AUD CY:EUR CZ:CZK
DE:EUR DJ:DJF DK:DKK DM:XCD DO:DOP DZ:DZD EC:USD EE:EUR EG:EGP EH:MAD ER:ERN ES:EUR ET:ETB FI:EUR
FJ:FJD FK:FKP FM:USD FO:DKK FR:EUR GA:XAF GB:GBP GD:XCD GE:GEL GF:EUR GG:GBP GH:GHS GI:GIP GL:DKK
GM:GMD GN:GNF GP:EUR GQ:XAF GR:EUR GS:GBP GT:GTQ GU:USD GW:XOF GY:GYD HK:HKD HM:AUD HN:HNL HR:EUR
HT:HTG HU:HUF ID:IDR IE:EUR IL:ILS IM:GBP IN:INR IO:USD IQ:IQD IR:IRR IS:ISK IT:EUR JE:GBP JM:JMD
JO:JOD JP:JPY KE:KES KG:KGS KH:KHR KI:AUD KM:KMF KN:XCD KP:KPW KR:KRW KW:KWD KY:KYD KZ:KZT LA:LAK
LB:LBP LC:XCD LI:CHF LK:LKR LR:LRD LS:LSL LT:EUR LU:EUR LV:EUR LY:LYD MA:MAD MC:EUR MD:MDL ME:EUR
MF:EUR MG:MGA MH:USD MK:MKD ML:XOF MM:MMK MN:MNT MO:MOP MP:USD MQ:EUR MR:MRU MS:XCD MT:EUR MU:MUR
MV:MVR MW:MWK MX:MXN MY:MYR MZ:MZN NA:NAD NC:XPF NE:XOF NF:AUD NG:NGN NI:NIO NL:EUR NO:NOK NP:NPR
NR:AUD NU:NZD NZ:NZD OM:OMR PA:PAB PE:PEN PF:XPF PG:PGK PH:PHP PK:PKR PL:PLN PM:EUR PN:NZD PR:USD
PS:ILS PT:EUR PW:USD PY:PYG QA:QAR RE:EUR RO:RON RS:RSD RU:RUB RW:RWF SA:SAR SB:SBD SC:SCR SD:SDG
SE:SEK SG:SGD SH:SHP SI:EUR SJ:NOK SK:EUR SL:SLE SM:EUR SN:XOF SO:SOS SR:SRD SS:SSP ST:STN SV:USD
SX:ANG SY:SYP SZ:SZL TC:USD TD:XAF TF:EUR TG:XOF TH:THB TJ:TJS TK:NZD TL:USD TM:TMT TN:TND TO:TOP
TR:TRY TT:TTD TV:AUD TW:TWD TZ:TZS UA:UAH UG:UGX UM:USD US:USD UY:UYU UZ:UZS VA:EUR VC:XCD VE:VES
VG:USD VI:USD VN:VND VU:VUV WF:XPF WS:WST YE:YER YT:EUR ZA:ZAR ZM:ZMW ZW:ZWL`

const languages = `AD:cat AE:ara AF:pus,prs,tuk AG:eng AI:eng AL:sqi AM:hye AO:por AR:spa,grn AS:eng,smo AT:deu
AU:eng AW:nld,pap AX:swe AZ:aze BA:bos,hrv,srp BB:eng BD:ben BE:nld,fra,deu BF:fra BG:bul BH:ara
BI:fra,run BJ:fra BL:fra BM:eng BN:msa BO:spa,aym,que,grn BQ:nld BR:por BS:eng BT:dzo BV:nor
BW:eng,tsn BY:bel,rus BZ:eng,spa CA:eng,fra CC:eng CD:fra,lin,kon,swa,lub CF:fra,sag CG:fra,lin,kon
CH:deu,fra,ita,roh CI:fra CK:eng,rar CL:spa CM:eng,fra CN:zho CO:spa CR:spa CU:spa CV:por
CW:nld,pap,eng CX:eng CY:ell,tur CZ:ces DE:deu DJ:fra,ara DK:dan DM:eng DO:spa DZ:ara EC:spa EE:est
EG:ara EH:spa,ara ER:tir,ara,eng ES:spa ET:amh FI:fin,swe FJ:eng,fij,hif FK:eng FM:eng FO:fao,dan
FR:fra GA:fra GB:eng GD:eng GE:kat GF:fra GG:eng,fra GH:eng GI:eng GL:kal GM:eng GN:fra GP:fra
GQ:spa,fra,por GR:ell GS:eng GT:spa GU:eng,cha GW:por GY:eng HK:zho,eng HM:eng HN:spa HR:hrv
HT:fra,hat HU:hun ID:ind IE:gle,eng IL:heb,ara IM:eng,glv IN:hin,eng IO:eng IQ:ara,kur IR:fas IS:isl
IT:ita JE:eng,fra JM:eng JO:ara JP:jpn KE:eng,swa KG:kir,rus KH:khm KI:eng,gil KM:ara,fra,zdj KN:eng
KP:kor KR:kor KW:ara KY:eng KZ:kaz,rus LA:lao LB:ara,fra LC:eng LI:deu LK:sin,tam LR:eng LS:eng,sot
LT:lit LU:fra,deu,ltz LV:lav LY:ara MA:ara MC:fra MD:ron ME:cnr MF:fra MG:fra,mlg MH:eng,mah MK:mkd
ML:fra MM:mya MN:mon MO:zho,por MP:eng,cha MQ:fra MR:ara MS:eng MT:mlt,eng MU:eng,fra MV:div
MW:eng,nya MX:spa MY:msa,eng MZ:por NA:eng,afr NC:fra NE:fra NF:eng NG:eng NI:spa NL:nld
NO:nor,nob,nno NP:nep NR:eng,nau NU:eng,niu NZ:eng,mri OM:ara PA:spa PE:spa,que,aym PF:fra
PG:eng,tpi,hmo PH:fil,eng PK:urd,eng PL:pol PM:fra PN:eng PR:spa,eng PS:ara PT:por PW:eng,pau
PY:spa,grn QA:ara RE:fra RO:ron RS:srp RU:rus RW:kin,fra,eng SA:ara SB:eng SC:eng,fra,crs SD:ara,eng
SE:swe SG:eng,msa,tam,zho SH:eng SI:slv SJ:nor SK:slk SL:eng SM:ita SN:fra SO:som,ara SR:nld SS:eng
ST:por SV:spa SX:nld,eng SY:ara SZ:eng,ssw TC:eng TD:fra,ara TF:fra TG:fra TH:tha TJ:tgk,rus
TK:eng,tkl,smo TL:por,tet TM:tuk,rus TN:ara TO:eng,ton TR:tur TT:eng TV:eng,tvl TW:zho TZ:swa,eng
UA:ukr UG:eng,swa UM:eng US:eng UY:spa UZ:uzb,rus VA:ita,lat VC:eng VE:spa VG:eng VI:eng VN:vie
VU:bis,eng,fra WF:fra WS:smo,eng YE:ara YT:fra ZA:afr,eng,zul,xho ZM:eng ZW:eng,sna,nde`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gencountries:", err)
		os.Exit(1)
	}
}

func run() error {
	src, err := readSources()
	if err != nil {
		return err
	}
	var out []Country
	for _, c := range src.countries {
		country, err := src.country(c)
		if err != nil {
			return err
		}
		out = append(out, country)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CCA2 < out[j].CCA2 })
	// JSON Lines, one country per line: readable diffs when the sources change.
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, country := range out {
		if err := enc.Encode(country); err != nil {
			return err
		}
	}
	return w.Flush()
}

// isoCountry is one entry of iso-codes' ISO 3166-1 list.
type isoCountry struct {
	Alpha2       string `json:"alpha_2"`
	Alpha3       string `json:"alpha_3"`
	Numeric      string `json:"numeric"`
	Name         string `json:"name"`
	Flag         string `json:"flag"`
	OfficialName string `json:"official_name"`
	CommonName   string `json:"common_name"`
}

// sources holds what every country is built from: iso-codes, tzdata and the tables below.
type sources struct {
	countries                                  []isoCountry
	currencyNames, langName, langLocale        map[string]string
	zones                                      map[string][]string
	coords                                     map[string][2]float64
	catalogs                                   map[string]map[string]string
	subregionOf, capitalOf, currencyOf, langOf map[string]string
}

func readSources() (*sources, error) {
	var iso struct {
		Countries []isoCountry `json:"3166-1"`
	}
	if err := readJSON(filepath.Join(isoCodes, "iso_3166-1.json"), &iso); err != nil {
		return nil, err
	}
	currencyNames, err := namesByCode("iso_4217.json", "4217")
	if err != nil {
		return nil, err
	}
	var langs struct {
		Languages []struct {
			Alpha2 string `json:"alpha_2"`
			Alpha3 string `json:"alpha_3"`
			Name   string
		} `json:"639-3"`
	}
	if err := readJSON(filepath.Join(isoCodes, "iso_639-3.json"), &langs); err != nil {
		return nil, err
	}
	src := &sources{
		countries: iso.Countries, currencyNames: currencyNames,
		langName: map[string]string{}, langLocale: map[string]string{},
		catalogs: map[string]map[string]string{}, subregionOf: map[string]string{},
		capitalOf: pairs(capitals, "|", ":"), currencyOf: pairs(currencies, " ", ":"),
		langOf: pairs(languages, " ", ":"),
	}
	for _, l := range langs.Languages {
		src.langName[l.Alpha3] = strings.TrimSuffix(l.Name, " (macrolanguage)")
		src.langLocale[l.Alpha3] = l.Alpha2
	}
	if src.zones, src.coords, err = readZoneTab(); err != nil {
		return nil, err
	}
	for sub, codes := range subregions {
		for _, c := range strings.Fields(codes) {
			src.subregionOf[c] = sub
		}
	}
	return src, nil
}

// catalog is the locale's ISO 3166-1 translations (none when it has no catalog).
func (s *sources) catalog(locale string) map[string]string {
	if c, ok := s.catalogs[locale]; ok {
		return c
	}
	c, err := readMO(filepath.Join(locales, locale, "LC_MESSAGES", "iso_3166-1.mo"))
	if err != nil {
		c = map[string]string{}
	}
	s.catalogs[locale] = c
	return c
}

// translate returns the translation of the first of the names that the locale has, else the
// fallback. (The empty msgid is the catalog's header, never a name.)
func (s *sources) translate(locale, fallback string, names ...string) string {
	for _, name := range names {
		if t := s.catalog(locale)[name]; name != "" && t != "" {
			return t
		}
	}
	return fallback
}

// country builds one line of countries.jsonl.
func (s *sources) country(c isoCountry) (Country, error) {
	sub, ok := s.subregionOf[c.Alpha2]
	if !ok {
		return Country{}, fmt.Errorf("%s: no subregion", c.Alpha2)
	}
	common := firstOf(commonNames[c.Alpha2], c.CommonName, c.Name)
	name := c.Name
	if strings.Contains(name, ", ") { // an inverted list entry: "Korea, Republic of"
		name = ""
	}
	official := firstOf(officialNames[c.Alpha2], c.OfficialName, name, common)
	country := Country{
		CCA2: c.Alpha2, CCA3: c.Alpha3, CCN3: c.Numeric, Flag: c.Flag,
		Common: common, Official: official, Capital: s.capitalOf[c.Alpha2],
		Region: regionOf(sub), Subregion: sub,
		Currencies: []Named{}, Languages: []Named{}, NativeNames: []Translation{}, Timezones: s.zones[c.Alpha2], LatLng: s.coords[c.Alpha2],
	}
	if code := s.currencyOf[c.Alpha2]; code != "" {
		name, ok := s.currencyNames[code]
		if !ok {
			return Country{}, fmt.Errorf("%s: unknown currency %s", c.Alpha2, code)
		}
		country.Currencies = append(country.Currencies, Named{code, name})
	}
	if err := s.addLanguages(&country, c); err != nil {
		return Country{}, err
	}
	if len(country.Timezones) == 0 {
		country.Timezones = []string{"UTC"}
	}
	for _, t := range translationLocales {
		tCommon := s.translate(t[1], common, common, c.CommonName, c.Name)
		tOfficial := s.translate(t[1], tCommon, official, c.OfficialName, c.Name)
		country.Translations = append(country.Translations, Translation{t[0], tCommon, tOfficial})
	}
	return country, nil
}

// addLanguages adds the country's languages and its names in each of them.
func (s *sources) addLanguages(country *Country, c isoCountry) error {
	list := s.langOf[c.Alpha2]
	if list == "" {
		return nil
	}
	for _, code := range strings.Split(list, ",") {
		name, ok := s.langName[code]
		if !ok {
			return fmt.Errorf("%s: unknown language %s", c.Alpha2, code)
		}
		country.Languages = append(country.Languages, Named{code, name})
		locale := s.langLocale[code]
		nativeCommon, nativeOfficial := country.Common, country.Official
		if locale != "" && locale != "en" {
			nativeCommon = s.translate(locale, country.Common, country.Common, c.CommonName, c.Name)
			nativeOfficial = s.translate(locale, nativeCommon, country.Official, c.OfficialName, c.Name)
		}
		country.NativeNames = append(country.NativeNames, Translation{code, nativeCommon, nativeOfficial})
	}
	return nil
}

// Names for the codes whose ISO 3166-1 name is an inverted list entry ("Congo, The Democratic
// Republic of the") and that iso-codes gives no common or official name for.
var commonNames = map[string]string{
	"CD": "DR Congo", "FM": "Micronesia", "PS": "Palestine", "RU": "Russia",
	"VA": "Vatican City", "VG": "British Virgin Islands", "VI": "United States Virgin Islands",
}

var officialNames = map[string]string{
	"CD": "Democratic Republic of the Congo", "KR": "Republic of Korea", "PS": "State of Palestine",
	"VA": "Vatican City State", "VI": "Virgin Islands of the United States",
}

func firstOf(names ...string) string {
	for _, n := range names {
		if n != "" {
			return n
		}
	}
	return ""
}

func pairs(s, sep, kv string) map[string]string {
	m := map[string]string{}
	for _, item := range strings.Split(strings.ReplaceAll(s, "\n", sep), sep) {
		if k, v, ok := strings.Cut(strings.TrimSpace(item), kv); ok {
			m[k] = v
		}
	}
	return m
}

func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func namesByCode(file, key string) (map[string]string, error) {
	var doc map[string][]struct {
		Alpha3 string `json:"alpha_3"`
		Name   string
	}
	if err := readJSON(filepath.Join(isoCodes, file), &doc); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, e := range doc[key] {
		m[e.Alpha3] = e.Name
	}
	return m, nil
}

// readZoneTab returns each country's time zones and the coordinates of its first zone.
func readZoneTab() (map[string][]string, map[string][2]float64, error) {
	f, err := os.Open(zoneTab)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	zones, coords := map[string][]string{}, map[string][2]float64{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < 3 {
			continue
		}
		code := fields[0]
		if _, ok := coords[code]; !ok {
			ll, err := parseISO6709(fields[1])
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", zoneTab, line, err)
			}
			coords[code] = ll
		}
		zones[code] = append(zones[code], fields[2])
	}
	return zones, coords, scanner.Err()
}

// parseISO6709 reads zone.tab coordinates: ±DDMM±DDDMM or ±DDMMSS±DDDMMSS.
func parseISO6709(s string) ([2]float64, error) {
	i := strings.IndexAny(s[1:], "+-") + 1
	if i == 0 {
		return [2]float64{}, fmt.Errorf("bad coordinates %q", s)
	}
	lat, err := degrees(s[:i], 2)
	if err != nil {
		return [2]float64{}, err
	}
	lng, err := degrees(s[i:], 3)
	return [2]float64{lat, lng}, err
}

func degrees(s string, degDigits int) (float64, error) {
	sign := 1.0
	if s[0] == '-' {
		sign = -1
	}
	digits := s[1:]
	var parts []float64
	for _, p := range []string{digits[:degDigits], digits[degDigits : degDigits+2], digits[degDigits+2:]} {
		if p == "" {
			parts = append(parts, 0)
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil {
			return 0, err
		}
		parts = append(parts, float64(v))
	}
	v := parts[0] + parts[1]/60 + parts[2]/3600
	return sign * float64(int(v*100+0.5)) / 100, nil
}

// readMO reads a GNU gettext .mo catalog into msgid -> msgstr.
func readMO(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if len(data) < 28 {
		return nil, fmt.Errorf("%s: too short", file)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if order.Uint32(data) != 0x950412de {
		order = binary.BigEndian
	}
	n := int(order.Uint32(data[8:]))
	origs, trans := int(order.Uint32(data[12:])), int(order.Uint32(data[16:]))
	str := func(table, i int) string {
		length := int(order.Uint32(data[table+8*i:]))
		offset := int(order.Uint32(data[table+8*i+4:]))
		return string(data[offset : offset+length])
	}
	m := make(map[string]string, n)
	for i := 0; i < n; i++ {
		m[str(origs, i)] = str(trans, i)
	}
	return m, nil
}
