/** German: Kfz-, Reise- and Krankenversicherung documents of German insurers. */
import type { LanguagePack } from '../types.js';

export const de = {
  code: 'de',
  name: 'Deutsch',
  tesseract: 'deu',
  months: ['januar', 'februar', 'marz', 'april', 'mai', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'dezember'],
  // "März" written without its umlaut, and the Austrian "Jänner".
  monthVariants: { maerz: 3, jaenner: 1, janner: 1 },
  monthAbbreviations: { jan: 1, feb: 2, febr: 2, mrz: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, okt: 10, nov: 11, dez: 12 },
  indicatorWords: ['der', 'die', 'das', 'und', 'ihr', 'ihre', 'versicherung\\w*', 'vertrag\\w*', 'beginn', 'ablauf', 'kennzeichen', 'beitrag', 'vom', 'bis', 'sehr', 'geehrte\\w*'],
  typeWords: {
    motor: { words: ['kfz\\w*', 'kraftfahrt\\w*', 'auto\\w*', 'fahrzeug\\w*', 'kennzeichen'] },
    // "Auslandsreise-Krankenversicherung" is travel cover, whatever "Kranken" says.
    travel: { words: ['reise\\w*', 'urlaub', 'geltungsbereich'], strong: ['auslandsreise', 'reisekranken', 'reise-kranken'] },
    health: { words: ['kranken\\w*', 'zahn\\w*'] },
  },
  countryNames: {
    UK: ['Vereinigtes Königreich', 'Großbritannien', 'England', 'Schottland', 'Wales', 'Nordirland'],
    DE: ['Deutschland', 'Bundesrepublik Deutschland'],
    FR: ['Frankreich'],
  },
  // "Haftpflicht" alone is private liability cover, not motor; Auslands- and Reisekrankenversicherung are travel cover.
  insuranceTypeWords: {
    motor: [
      'Kfz', 'Kfz-Versicherung', 'Kfz-Haftpflicht', 'Kfz-Haftpflichtversicherung', 'Kraftfahrzeug', 'Kraftfahrzeugversicherung',
      'Kraftfahrtversicherung', 'Autoversicherung', 'Auto', 'Teilkasko', 'Vollkasko',
    ],
    travel: ['Reise', 'Reiseversicherung', 'Reiseschutz', 'Reisekrankenversicherung', 'Auslandsreisekrankenversicherung', 'Auslandskrankenversicherung', 'Reiserücktrittsversicherung'],
    health: ['Kranken', 'Krankenversicherung', 'private Krankenversicherung', 'PKV', 'Krankenzusatzversicherung', 'Zahnzusatzversicherung'],
  },
  labels: {
    policy: [/(?:versicherungsschein|versicherungs|vertrags|polic[ee]n?|mitglieds)\s*-?\s*(?:nummer|nr\b\.?)/],
    insurer: [/\b(?:ihr\s+)?versicherer\b(?:\s+ist(?:\s+die)?)?/, /\b(?:risikotrager|versicherungstrager|versichert bei(?: der)?|besteht bei der|bei der|eine marke der)\b/],
    start: [/\b(?:versicherungsbeginn|vertragsbeginn|beginn|g\w{3,5} ab)\b/],
    end: [/\b(?:versicherungsende|vertragsende|ablauf|ablaufdatum|vertragsablauf|endet am|g\w{3,5} bis)\b/],
    period: [/\b(?:versicherungsdauer|laufzeit|vertragsdauer|versicherungszeitraum|versicherungsschutz besteht)\b/],
    registration: [/\b(?:amtliches?\s+kennzeichen|kfz-kennzeichen|kennzeichen)\b/],
  },
  copulas: ['lautet', 'ist'],
  periodConnectors: ['bis'],
  notPolicyContext: ['kunden', 'partner', 'telefon', 'fax', 'hrb', 'hra', 'amtsgericht', 'beitrag', 'geburt', 'geboren', 'iban', 'bic'],
  notPeriodContext: ['ausgestellt', 'ausstellungsdatum', 'datum', 'geburt\\w*', 'geboren', 'erstzulassung', 'zulassung', 'f\\w{0,2}lligkeit', 'hauptf\\w{0,2}lligkeit', 'eingezogen', 'lastschrift', 'stand'],
  secondaryNumberWords: ['kunden', 'partner', 'antrag', 'referenz', 'mandat', 'tarif'],
  insurerWords: ['versicherung\\w*', 'versicherungs\\w*', 'krankenversicherung\\w*', 'assekuranz', 'a\\.\\s?g\\.?'],
  notInsurerContext: ['vermittler', 'makler', 'vermittelt', 'bafin', 'aufsicht', 'registergericht', 'amtsgericht', 'vorstand', 'vorsitzende\\w*', 'aufsichtsrat\\w*', 'niederlassung der'],
  documentTitleWords: ['versicherungsschein', 'bestatigung', 'nachtrag', 'police', 'bescheinigung', 'nachweis', 'bedingungen', 'karte'],
  departmentWords: ['abteilung', 'kundenservice', 'kundendienst', 'service-team', 'serviceteam', 'team', 'leistungsabteilung', 'vertragsabteilung'],
  personTitles: ['herr', 'frau', 'herrn', 'dr'],
  legalForms: [
    'ag', 'se', 'gmbh', 'kg', 'kgaa', 'vvag', 'vag', 'ev', 'aktiengesellschaft', 'gesellschaft', 'ges', 'actien',
    'versicherungsverein auf gegenseitigkeit', 'verein auf gegenseitigkeit', 'auf gegenseitigkeit',
  ],
  // "das" stays a word: D.A.S. is an insurer's name.
  genericNameWords: ['versicherung', 'versicherer', 'allgemeine', 'direkt', 'deutschland', 'international', 'autoversicherung', 'sachversicherung', 'auto', 'kranken', 'krankenversicherung', 'leben', 'lebensversicherung', 'reise', 'reiseversicherung'],
  stopWords: ['der', 'die', 'und', 'fur'],
  coverage: {
    labels: {
      motor_cover: ['deckungsumfang', 'versicherungsumfang', 'deckung', 'versicherungsschutz', 'sparte'],
      trip_type: ['vertragsart', 'versicherungsart', 'tarif', 'vertrag'],
      region: ['geltungsbereich', 'geltungsgebiet', 'reiseziel', 'reisegebiet'],
      health_plan: ['versicherter tarif', 'tarifbezeichnung', 'tarifstufe', 'tarife?'],
    },
    motorCover: {
      third_party: ['kfz-haftpflicht\\w*', 'haftpflicht\\w*'],
      third_party_fire_theft: ['teilkasko\\w*'],
      comprehensive: ['vollkasko\\w*'],
    },
    tripTypes: {
      single_trip: ['einzelreise\\w*', 'fur eine reise', 'einmalige reise'],
      annual_multi_trip: ['jahresvertrag', 'jahresreise\\w*', 'jahrespolice', 'jahres-reise\\w*', 'ganzjahres\\w*', 'alle reisen'],
    },
    regions: {
      domestic: ['nur deutschland', 'deutschland', 'inland'],
      europe: ['europa\\w*'],
      worldwide_excluding_usa: ['(?:welt|weltweit),? (?:ohne|exkl\\.?|ausgenommen|ausser) (?:usa|nordamerika|kanada)'],
      worldwide: ['weltweit'],
    },
    negations: ['nicht versichert', 'nicht vereinbart', 'nicht enthalten', 'entfallt', 'ohne', 'nein'],
    elsewhere: ['andere\\w* fahrzeug\\w*', 'fremde\\w* fahrzeug\\w*'],
    // Tariff levels of private Krankenversicherung products (Komfort, Kompakt, Premium, Exklusiv ...).
    healthPlanWords: ['komfort', 'kompakt', 'premium', 'basis', 'classic', 'exklusiv', 'optimal', 'plus', 'top', 'vital', 'bestschutz'],
  },
  sheetHeaders: {
    // "Polizze" is Austrian usage; "polizza" is kept from the Italian-speaking South Tyrol.
    policy: ['versicherungsschein\\w*', 'vsnr', 'vertrag\\w*', 'vertragsnummer', 'policennummer', 'polizzennummer', 'polizza'],
    number: ['nr', 'nummer'],
    policyNumber: ['vsnr', 'versicherungsscheinnummer', 'policennummer', 'vertragsnummer'],
    type: ['typ', 'art', 'sparte', 'versicherungsart'],
    country: ['land', 'staat'],
    provider: ['versicherer', 'versicherung', 'gesellschaft'],
  },
  sheetNotes: {
    heading: { unverified: 'Covercheck: nicht bestätigt. Warum:', inconclusive: 'Covercheck: nicht eindeutig. Warum:' },
    checks: { format: 'Nummernformat', register: '{regulator}-Register', registry: 'Policenregister', sanctions: 'Sanktionsliste' },
    outcomes: { pass: 'bestanden', fail: 'nicht bestanden', warn: 'Warnung', unavailable: 'nicht erreichbar', skipped: 'übersprungen', not_available: 'keine Quelle eingerichtet', not_checked: 'nicht geprüft', unknown: 'unbekannt' },
    flagsLabel: 'Hinweise',
    flags: {
      expired: 'abgelaufen', not_yet_active: 'noch nicht gültig', cancelled: 'gekündigt', suspended: 'ruhend', sanctioned: 'Versicherer sanktioniert',
      insurer_not_authorised: 'Versicherer nicht zugelassen', provider_mismatch: 'Versicherer stimmt nicht überein', provider_not_found: 'Versicherer nicht gefunden',
      type_mismatch: 'Versicherungsart stimmt nicht überein', registry_unavailable: 'Register nicht erreichbar', no_registry_coverage: 'kein Register deckt dies ab',
      demo_data: 'Demodaten', document_mismatch: 'Dokument stimmt nicht überein', sandbox: 'Sandbox-Schlüssel (nur Demodaten)',
      provider_is_intermediary: 'Anbieter ist Vermittler, kein Versicherer', sanctions_not_checked: 'Sanktionen nicht geprüft',
    },
    confidence: 'Konfidenz',
  },
} as const satisfies LanguagePack;
