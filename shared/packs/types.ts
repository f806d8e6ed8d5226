/**
 * What varies by country and by language, as the shape of a pack. A country is one CountryProfile
 * (countries/<code>.ts), a language one LanguagePack (languages/<code>.ts); the registries in
 * countries/index.ts and languages/index.ts hold them with `satisfies`, and every per-country or
 * per-language table elsewhere is a Record over their codes, so the compiler lists every gap.
 */
import type { TCheckOutcome } from '../flags.js';
import type { TCoverageField, TMotorCoverLevel, TTravelRegion, TTripType } from '../coverage-terms.js';
import type { TInsuranceType } from '../insurance-types.js';
import type { TReviewKey } from '../review-keys.js';

/** A policy-number rule on the normalised number (upper case, no spaces, dashes or dots). */
export interface FormatRule {
  pattern: RegExp;
  /** Minimum count of digits; insurer numbers are mostly numeric, names and plates are not. */
  minDigits: number;
  /** In words, for error messages: "8-20 letters or digits, at least 5 digits". */
  description: string;
  /** The standard the rule follows, or why it is a plausibility bound. */
  basis: string;
}

/** A vehicle registration found in text, in the country's canonical form. */
export interface PlateReading {
  plate: string;
  /** 1 when read as printed, lower when OCR look-alikes had to be swapped. */
  certainty: number;
}

export interface CountryProfile<L extends string = string> {
  /** The code the API uses (spec 2.1). */
  code: string;
  name: string;
  /** Other codes accepted as input for this country (ISO's GB for UK). Compared case-insensitively. */
  aliases: readonly string[];
  /** Languages its policy documents are written in, the usual one first. */
  languages: readonly L[];
  /** Currency symbols whose presence on a document points to this country ("£"). */
  currencySymbols: readonly string[];
  /** The insurer-regulator register behind the register check. */
  regulator: {
    /** "FCA", "BaFin", "ACPR". */
    name: string;
    /** The check's name in checks[].source (verification_sources always says fca_register, spec 2.2). */
    checkSource: string;
    /** What the insurer's `reference` is in this country ("FCA Firm Reference Number"). */
    reference: string;
    /** The reference's short name before a number in a sentence ("FRN 311492"). */
    referenceShort: string;
    /** How an operator loads this country's whole register, as a clause after "to check any firm, ". */
    completeRegister: string;
    /**
     * The regulator's public page for a register entry, where its identifier allows one; null otherwise.
     * `scheme` is the row's reference scheme (store/types ReferenceScheme): demo and cross-border rows get none.
     */
    registerLink(entry: { reference: string; scheme: string; name: string }): string | null;
  };
  /** How the EIOPA Register of Insurance Undertakings export files this country's insurers. */
  eiopa: {
    /** Values of the export's "Home Country" column that mean this country. */
    homeCodes: readonly string[];
    /** The reference scheme a home undertaking's code is stored under. */
    scheme: string;
    /** The reference a home code is filed under (DE: the BaFin number without its branch suffix). */
    baseCode?: (code: string) => string;
  };
  /** The national policy registry an upstream would stand for (documentation only). */
  registryName: string;
  /** Policy-number plausibility per insurance type: every type must have one. */
  formatRules: Record<TInsuranceType, FormatRule>;
  /** Current-format vehicle registrations: every plate in `text`, canonical, with OCR repairs by position. */
  readPlates(text: string): PlateReading[];
  /** Plate format in words, for documentation. */
  plateFormat: string;
}

/** Where a field's label is looked for in a document. */
export const LABEL_KINDS = ['policy', 'insurer', 'start', 'end', 'period', 'registration'] as const;
export type TLabelKind = (typeof LABEL_KINDS)[number];

/**
 * How a language states coverage details (extract/coverage.ts), as regular-expression fragments on folded
 * text (lower case, no accents). Every value of each list in shared/coverage-terms.ts needs its words.
 */
export interface CoverageVocabulary {
  /** Labels whose value states the detail ("type of cover", "Geltungsbereich", "formule"), per detail. */
  labels: Record<TCoverageField, readonly string[]>;
  /** Cover-level wording; where several levels are printed (a German table of Haftpflicht and Teilkasko rows), the highest wins. */
  motorCover: Record<TMotorCoverLevel, readonly string[]>;
  tripTypes: Record<TTripType, readonly string[]>;
  /** Travel areas; where two overlap in the text ("worldwide excluding USA" holds "worldwide") the longer reading wins. */
  regions: Record<TTravelRegion, readonly string[]>;
  /** Words after cover wording on its line that say it is not held ("not included", "nicht versichert", "non souscrite"). */
  negations: readonly string[];
  /** Words near cover wording that say it is about something else (another vehicle the holder may drive). */
  elsewhere: readonly string[];
  /**
   * Words that name a health plan's level when a certificate prints the plan without a label, as its
   * title or under it ("Bupa By You — Comprehensive", "Personal Health — Core", "Komfort Plus"):
   * read only from a short line of its own near the top, at a lower confidence than a label's value.
   */
  healthPlanWords: readonly string[];
}

/**
 * The sidebar's own texts (addon/html/sidebar.html), by name. `{name}` marks a value the sidebar puts in;
 * texts the connector or the add-on's server code write (row errors, check details, BulkPdfTexts) are not here.
 */
export interface SidebarTexts {
  rowsTitle: string;
  /** {sheet}, {first}, {last}: the sheet and the rows a run reads */
  rowsRange: string;
  fieldPolicyNumber: string;
  fieldCountry: string;
  fieldInsuranceType: string;
  fieldProvider: string;
  /** The empty choice of a column list */
  noColumn: string;
  /** {n}: the column number, for a column without a header */
  columnN: string;
  /** {fields}: the fields, comma-separated, in lower case */
  missingColumns: string;
  writeBack: string;
  writeBackHelp: string;
  connectSheet: string;
  connecting: string;
  recheckLabel: string;
  recheckChanged: string;
  recheckAll: string;
  /** Before the number of days */
  ageBefore: string;
  /** After the number of days */
  ageAfter: string;
  /** The days field, for screen readers */
  ageDays: string;
  verify: string;
  /** The progress bar, for screen readers */
  verifyProgress: string;
  submitting: string;
  /** {rows}, {sheet}; {selected}: selectedOne, selectedMany or selectedNone */
  confirmAll: string;
  selectedOne: string;
  /** {n}: rows */
  selectedMany: string;
  selectedNone: string;
  nothingSent: string;
  /** {done} of {total} */
  rowsDone: string;
  /** {n}: rows with errors, after rowsDone */
  rowsErrors: string;
  results: string;
  countVerified: string;
  countUnverified: string;
  countInconclusive: string;
  countErrors: string;
  countChecked: string;
  countSkipped: string;
  /** {n} */
  creditsSpent: string;
  /** {n}: after creditsSpent */
  creditsLeft: string;
  needsLookOne: string;
  /** {n} */
  needsLookMany: string;
  needsLookNone: string;
  /** {row}, {policy} */
  rowLink: string;
  noNumber: string;
  /** {n} */
  andMore: string;
  pendingTitle: string;
  pendingRun: string;
  pendingHelp: string;
  pdfTitle: string;
  pdfPick: string;
  pdfPickHelp: string;
  pdfLink: string;
  pdfRun: string;
  /** The progress bar, for screen readers */
  pdfProgress: string;
  uploading: string;
  /** {file} */
  reading: string;
  /** {file}, {s}: seconds so far */
  readingFor: string;
  /** A file's state in the list of files picked (its name is shown above it); `uploading` is the one between */
  pdfStateQueued: string;
  pdfStateReading: string;
  /** The button beside a file whose values wait for a check */
  pdfCheckValues: string;
  /** The list of files picked, for screen readers */
  pdfFiles: string;
  /** While the Picker dialog is open */
  pdfChooseInDialog: string;
  pdfDialogClosed: string;
  pdfNoFile: string;
  /** {file}, {text}: what became of one file of several, above the list in a sentence */
  pdfFileSays: string;
  /** Review table heading */
  reviewField: string;
  /** Review table heading */
  reviewValue: string;
  /** Review table heading, short */
  reviewConfidence: string;
  /** Review table heading of the tick boxes */
  reviewOk: string;
  /** {text}: the document's own wording */
  reviewPrinted: string;
  /** {field}: a tick box, for screen readers */
  reviewTicked: string;
  /** The mark of a value to check */
  reviewBadge: string;
  /** Before the mark */
  reviewNoteBefore: string;
  /** After the mark */
  reviewNoteAfter: string;
  reviewWrite: string;
  reviewDiscard: string;
  discarded: string;
  dsTitle: string;
  /** The search field and its button */
  dsSearch: string;
  dsSearchPlaceholder: string;
  /** {n}: datasets found */
  dsFound: string;
  dsDataset: string;
  dsSheet: string;
  dsPoints: string;
  dsChart: string;
  dsRefresh: string;
  never: string;
  /** A refresh cadence, as chosen and as listed */
  hourly: string;
  daily: string;
  weekly: string;
  dsEachRefresh: string;
  modeOverwrite: string;
  modeAppend: string;
  modeMerge: string;
  dsColumnsKept: string;
  dsRefreshedBy: string;
  byTrigger: string;
  byConnector: string;
  dsImport: string;
  /** The progress bar, for screen readers */
  dsProgress: string;
  /** {n}: points, {sheet} */
  importing: string;
  /** {n}, {sheet}, {s}: seconds so far */
  importingFor: string;
  /** {n}: rows, {sheet} */
  imported: string;
  /** After imported */
  importedChart: string;
  /** {cadence}: hourly, daily or weekly in lower case */
  importedRefreshed: string;
  /** {cadence} */
  importedByConnector: string;
  byAddonTitle: string;
  byConnectorTitle: string;
  /** {n}: schedules whose last refresh failed */
  failing: string;
  /** An empty list */
  none: string;
  notAvailable: string;
  refreshNow: string;
  remove: string;
  resume: string;
  /** In a schedule line */
  yours: string;
  /** In a schedule line */
  anotherEditors: string;
  /** {at}: date and time */
  refreshedAt: string;
  /** {at}: date and time */
  nextAt: string;
  /** {status}: the run's status as the connector names it */
  lastRun: string;
  notRunYet: string;
  /** Run history, one run */
  historyOne: string;
  /** {n} */
  historyMany: string;
  /** {n}: after historyOne or historyMany */
  historyFailed: string;
  running: string;
  failed: string;
  /** {n} */
  rowsN: string;
  branding: string;
  /** A cadence inside a sentence or a schedule line */
  cadenceHourly: string;
  cadenceDaily: string;
  cadenceWeekly: string;
  /** A refresh mode in a schedule line */
  modeAppendShort: string;
  modeMergeShort: string;
  /** The tabs between "Verify selected rows" and "Watch selected rows", and their list, for screen readers */
  tabsLabel: string;
  tabVerify: string;
  tabWatch: string;
  watchTitle: string;
  watchHelp: string;
  fieldEndDate: string;
  watchCadence: string;
  watchWindow: string;
  watchReportTo: string;
  watchToSheet: string;
  watchToEmail: string;
  watchToWebhook: string;
  /** The webhook URL field, for screen readers */
  watchWebhookUrl: string;
  watchCreate: string;
  watchCreating: string;
  /** {n}: policies, {cadence}: cadenceDaily or cadenceWeekly */
  watchCreated: string;
  /** {n}: after watchCreated */
  watchBlankRows: string;
  watchListTitle: string;
  watchRefresh: string;
  /** {n}: policies, {cadence} */
  watchSummary: string;
  /** The mark of a paused watch */
  watchPaused: string;
  watchPausedNote: string;
  /** {at}: date and time */
  watchNext: string;
  /** {n} */
  watchCredits: string;
  /** {where}: watchWhere* texts, comma-separated */
  watchReports: string;
  /** {sheet} */
  watchWhereSheet: string;
  watchWhereOther: string;
  watchWhereEmail: string;
  watchWhereWebhook: string;
  watchWhereNone: string;
  /** {n}: policies due for a re-check */
  watchRechecks: string;
  watchNoRun: string;
  /** {checked} of {policies} */
  watchRunning: string;
  /** {at}, {checked}, {policies}, {changed}, {credits} */
  watchLastRun: string;
  /** {why}: the connector's reason (English) */
  watchStopped: string;
  watchNoChanges: string;
  /** {row}, {policy}, {before}, {after}: statuses; {why}: the connector's words (English) */
  watchChange: string;
  /** The same, for a policy whose row is not known */
  watchChangeNoRow: string;
  watchPause: string;
  watchDelete: string;
  watchDeleteConfirm: string;
  rowHistoryTitle: string;
  rowHistoryHelp: string;
  rowHistoryRun: string;
  /** {row}, {policy}, {n}: results shown */
  rowHistoryOf: string;
  /** {row}, {policy} */
  rowHistoryNone: string;
  /** {n}: after rowHistoryOf, when older results exist */
  rowHistoryMore: string;
  /** Table headings */
  rowHistoryWhen: string;
  rowHistoryStatus: string;
  rowHistoryChanged: string;
  /** The oldest result shown: nothing before it to compare with */
  rowHistoryFirst: string;
  rowHistorySame: string;
  /** What changed from one result to the next: {from}, {to} */
  changeStatus: string;
  changeInsurer: string;
  changeEndDate: string;
  changeRegistry: string;
  /** {flag}: the flag in words */
  changeFlagAdded: string;
  changeFlagRemoved: string;
  /** How a result was asked for (the history's source) */
  sourceSync: string;
  sourceAsync: string;
  sourceBatch: string;
  sourceWatch: string;
  /** A single result's status */
  statusVerified: string;
  statusUnverified: string;
  statusInconclusive: string;
  statusError: string;
}

/**
 * What the add-on's server code writes about the files of a bulk extraction from Drive (addon/src/pdf-queue.ts,
 * pdf.ts, review.ts): their reasons, the list in a sentence, and the refusals. A file's state while it is open
 * (queued, uploading, reading, discarded) is the sidebar section's words. `{why}` is the connector's reason, in
 * its words (English). `…One` and `…Many` are a count's singular and plural.
 */
export interface BulkPdfTexts {
  filesOne: string;
  /** {n} */
  filesMany: string;
  /** {files}: filesOne or filesMany; {counts}: the count* texts, comma-separated */
  summary: string;
  /** {n}: files written, to check, being read, queued, failed, discarded */
  countDoneOne: string;
  countDoneMany: string;
  countReviewOne: string;
  countReviewMany: string;
  countReadingOne: string;
  countReadingMany: string;
  countQueuedOne: string;
  countQueuedMany: string;
  countFailedOne: string;
  countFailedMany: string;
  countDiscardedOne: string;
  countDiscardedMany: string;
  /** {s}: seconds until the next upload, after the summary */
  nextUpload: string;
  /** {row}; {n}: fields */
  rowWrittenOne: string;
  rowWrittenMany: string;
  /** {n}: values checked in the review, after rowWritten* */
  checkedOne: string;
  checkedMany: string;
  /** {n}: values below 0.9, {total}: values read */
  needsCheckOne: string;
  needsCheckMany: string;
  /** {max}: files a queue holds, {n}: files chosen */
  tooManyChosen: string;
  /** {max}, {n}: links pasted */
  tooManyLinks: string;
  /** {max}, {n}: files still open, {room}: files that can be added */
  tooManyOpenOne: string;
  tooManyOpenMany: string;
  pasteLink: string;
  dialogGone: string;
  busy: string;
  /** {file}, {type}: its MIME type */
  notExtractable: string;
  /** {file}, {size} and {max}: megabytes */
  tooLarge: string;
  /** Between a megabyte figure's whole and tenths */
  decimalMark: string;
  /** A file Drive refuses: not picked with the Picker */
  notPicked: string;
  /** {file} */
  cutOff: string;
  /** {file}, {why} */
  connectionBroke: string;
  /** {file}, {why} */
  jobGone: string;
  /** {why}: a queued file left unsent after the key was refused */
  notSent: string;
  /** A failed job without a reason */
  extractionFailed: string;
  notComplete: string;
  listExpired: string;
  /** {file}, {row} */
  alreadyWritten: string;
  /** {file} */
  isDiscarded: string;
  /** {file} */
  notWaiting: string;
}

/**
 * The add-on's own words in a language: what a person reads in the sidebar and in the cells the add-on
 * writes. Every entry is required, so a text added for one language is a compile error in the others.
 */
export interface AddonTexts {
  /** The name of each value the PDF review lists ("Policy number", "Versicherungsscheinnummer"). */
  reviewLabels: Record<TReviewKey, string>;
  /**
   * Each normalised coverage value as a person writes it ("third_party_fire_theft" is "Third party, fire
   * and theft"), per coverage detail; the health plan has no fixed list and is kept as printed.
   */
  coverageValues: {
    motor_cover: Record<TMotorCoverLevel, string>;
    trip_type: Record<TTripType, string>;
    region: Record<TTravelRegion, string>;
  };
  sidebar: SidebarTexts;
  bulkPdf: BulkPdfTexts;
}

/**
 * `F` is the contract's flag list (TFlag): the language registry fills it in, so every pack must name
 * every flag; it is a parameter because shared/verification.ts itself depends on the country packs.
 * `C` is the country list (TCountry), a parameter for the same reason: the country registry imports the
 * languages, so packs/input-words.ts, which sees both registries, fills it in.
 */
export interface LanguagePack<F extends string = string, C extends string = string> {
  /** ISO 639-1 code. */
  code: string;
  name: string;
  /** Tesseract model (traineddata from the @tesseract.js-data/<model> package). */
  tesseract: string;
  /** Month names, January first, as written; folded (lower case, no accents) where compared. */
  months: readonly [string, string, string, string, string, string, string, string, string, string, string, string];
  /** Other full spellings and their month numbers ("maerz": 3). */
  monthVariants: Readonly<Record<string, number>>;
  /** Abbreviations and their month numbers ("okt": 10); matched exactly. */
  monthAbbreviations: Readonly<Record<string, number>>;
  /** Frequent words of this language's policy documents (folded), to guess a document's language. */
  indicatorWords: readonly string[];
  /**
   * Words that say which insurance type a document is about, as regular-expression fragments on
   * folded text ("kfz\\w*"); `strong` ones are decisive ("Auslandsreise-Krankenversicherung" is travel).
   */
  typeWords: Record<TInsuranceType, { words: readonly string[]; strong?: readonly string[] }>;
  /**
   * What staff type for a country in a request or a sheet cell ("Deutschland", "Royaume-Uni"), as written.
   * Matched whole after folding case, accents, spaces, hyphens and punctuation (packs/input-words.ts).
   */
  countryNames: Record<C, readonly string[]>;
  /**
   * What staff type for an insurance type ("Kfz-Haftpflicht", "complémentaire santé"), as written and
   * matched like countryNames. Not typeWords: those are document wording, matched as prefixes
   * ("auto\\w*"), and include words that are no name for the type ("kennzeichen", "destination").
   */
  insuranceTypeWords: Record<TInsuranceType, readonly string[]>;
  /** Field labels, as patterns on folded text, tried in order. */
  labels: Record<TLabelKind, readonly RegExp[]>;
  /** Words between a label and its value ("is", "lautet", "est"). */
  copulas: readonly string[];
  /** Words between a date's label and the date in a sentence ("on", "am", "le", "at midnight on"), folded. */
  dateLeadIns: readonly string[];
  /**
   * Words that alone head the start or the end column of a table under a period header ("Versicherungszeitraum" over
   * "vom" and "bis", "Validité" over "Début" and "Fin"), folded. Only a cell of its own counts: in prose they are
   * ordinary words.
   */
  periodColumnWords: { start: readonly string[]; end: readonly string[] };
  /** Words between two dates of a period ("to", "bis", "au"). */
  periodConnectors: readonly string[];
  /** Words near a number that say it is not a policy number (customer number, phone, register), folded. */
  notPolicyContext: readonly string[];
  /** Words near a date that say it is not the cover period (date of issue, of birth, first registration), folded fragments. */
  notPeriodContext: readonly string[];
  /** Words of a post-office box in an address ("po box", "postfach", "cs", "tsa", "bp"), folded: the number after one is no policy number. */
  postBoxWords: readonly string[];
  /** Label words of numbers printed beside the policy number that are usually not it (certificate, reference), folded. */
  secondaryNumberWords: readonly string[];
  /** Words that make a piece of text look like an insurer's name ("insurance", "versicherung\\w*", "mutuelle"), folded fragments. */
  insurerWords: readonly string[];
  /** Words around a company name that say it is not the risk carrier (broker, regulator, trading name, register court), folded fragments. */
  notInsurerContext: readonly string[];
  /**
   * What names an intermediary (a broker, an agent, a distributor, an administrator), as folded fragments: words
   * right `before` its name ("arranged by", "Vermittler:", "courtier :") or right `after` it ("acts as an
   * intermediary", "vermittelt", ", courtier"). A name so named anywhere in a document does not carry its risk.
   */
  intermediaryWords: { before: readonly string[]; after: readonly string[] };
  /**
   * Words that say what kind of document this is, as folded fragments: an insurance document's ("insurance",
   * "Versicherungsschein", "cotisation", a premium notice's title), and those of the documents people upload in its
   * place: invoices, bank statements, letters. A document is an insurance document unless another kind's words
   * outweigh its insurance wording (fields/document-type.ts).
   */
  documentKindWords: Record<'insurance' | 'invoice' | 'bank_statement' | 'letter', readonly string[]>;
  /** Words of document titles ("schedule", "attestation"), folded: a title holding "Insurance" is not an insurer's name. */
  documentTitleWords: readonly string[];
  /** Words that open the name of a department or team that signs for the insurer ("service", "abteilung"), folded: such a name is not the carrier. */
  departmentWords: readonly string[];
  /** Titles before a person's name ("mr", "frau", "mme"), folded: such a name is a policyholder, not an insurer. */
  personTitles: readonly string[];
  /** Legal-form words and phrases of company names ("limited", "aktiengesellschaft"), dropped when matching names. */
  legalForms: readonly string[];
  /** Words that many insurers' names share ("insurance", "versicherung", "france"): a name made only of these identifies no one. */
  genericNameWords: readonly string[];
  /** Articles and prepositions in company names that carry no identity. */
  stopWords: readonly string[];
  /** Coverage details: cover levels, trip types, travel areas, plan labels. */
  coverage: CoverageVocabulary;
  /** Header words of a sheet's columns, per field the add-on reads (folded, regular-expression fragments). */
  sheetHeaders: {
    /** Words naming a policy or contract ("policy", "vertrag\\w*"): a policy-number column when a `number` word is there too. */
    policy: readonly string[];
    number: readonly string[];
    /** Single words that alone name a policy-number column ("vsnr"). */
    policyNumber: readonly string[];
    type: readonly string[];
    country: readonly string[];
    provider: readonly string[];
    /** Words naming a cover's end date ("expiry", "ablauf\\w*"): the optional end-date column of a watch. */
    endDate: readonly string[];
  };
  /**
   * The cell note the add-on puts on an unverified or inconclusive row, saying why.
   * Check details stay in the connector's words (English); what frames them is translated.
   */
  sheetNotes: {
    /** The note's first line, per status. */
    heading: { unverified: string; inconclusive: string };
    /**
     * Names of the checks in checks[].source; `register` stands for every regulator's register
     * check (fca_register, bafin_register…), with {regulator} replaced by its name from the country profile.
     */
    checks: Record<'format' | 'register' | 'registry' | 'sanctions', string>;
    outcomes: Record<TCheckOutcome, string>;
    /** Label before the warning flags. */
    flagsLabel: string;
    flags: Record<F, string>;
    /** Label before the confidence score. */
    confidence: string;
  };
  /** The add-on's sidebar and the values it writes, in this language. */
  addon: AddonTexts;
}
