/** Importer for HM Treasury's OFSI Consolidated List of Financial Sanctions Targets (ConList.csv or ConList.xml). */
import type { ParsedSanctionsList } from './listing.js';
import { checkSize, ListingCollector, looksLikeXml } from './listing.js';
import { readCsvTable } from './csv.js';
import { childText, readXmlRecords } from './xml.js';

/*
 * Published by OFSI at https://www.gov.uk/government/publications/financial-sanctions-consolidated-list-of-targets
 * ("2022 format" files, e.g. https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.xml).
 * OFSI closed the list on 28 January 2026: the UK Sanctions List (uksl.ts) is the UK's one list since.
 *
 * CSV shape, as moov-io/watchman reads the real file (pkg/sources/csl_uk/uk_csl.go, column positions;
 * reader_uk.go; checked against a real extract in reader_uk_test.go): a first line "Last Updated,<dd/mm/yyyy>",
 * then a header of 36 columns: Name 6, Name 1 ... Name 5, Title, Name Non-Latin Script, Non-Latin Script
 * Type, Non-Latin Script Language, DOB, ..., Address 1 ... Address 6, Post/Zip Code, Country, Other
 * Information, Group Type, Alias Type, Alias Quality, Regime, Listed On, UK Sanctions List Date Designated,
 * Last Updated, Group ID. Columns are read by name, so their order does not matter.
 *
 * XML shape, as OpenSanctions' crawler reads it (opensanctions/opensanctions, datasets/gb/hmt/crawler.py;
 * URL in datasets/gb/hmt/gb_hmt_sanctions.yml): <ArrayOfFinancialSanctionsTarget> holding one
 * <FinancialSanctionsTarget> per name, whose child elements carry the same fields: name1 ... name5, Name6
 * (OFSI's own casing), NameNonLatinScript, GroupTypeDescription, AliasType, RegimeName, GroupID, ...
 *
 * Both forms have one row per name: a listing's primary name, its variations and its aliases (AKA, FKA)
 * each sit on a row of their own, tied together by the Group ID. Name 6 is the whole name of an entity
 * (the surname of a person); Name 1 to 5 precede it. Group Type is "Individual", "Entity" or "Ship".
 */

const LIST = 'uk-ofsi';
const CSV_WHAT = 'OFSI consolidated list CSV';
const XML_WHAT = 'OFSI consolidated list XML';

const CSV = {
  nameParts: ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5', 'Name 6'],
  nonLatin: 'Name Non-Latin Script',
  type: 'Group Type',
  group: 'Group ID',
} as const;
const CSV_REQUIRED = ['Name 6', CSV.type, CSV.group];

const XML = {
  nameParts: ['name1', 'name2', 'name3', 'name4', 'name5', 'Name6'],
  nonLatin: 'NameNonLatinScript',
  type: 'GroupTypeDescription',
  group: 'GroupID',
} as const;

interface NameRow {
  type: string;
  group: string;
  parts: string[];
  nonLatin: string;
}

function addRow(collector: ListingCollector, row: NameRow, where: string, what: string): void {
  if (row.type.toLowerCase() !== 'entity') {
    collector.skip(row.type, row.group);
    return;
  }
  if (!row.group) throw new Error(`${what}: ${where}: an entity without a Group ID`);
  collector.addName(row.group, row.parts.filter(Boolean).join(' '));
  collector.addName(row.group, row.nonLatin);
}

/** The date of the "Last Updated,<date>" line above the header, when there is one. */
function lastUpdated(preamble: string[][]): string | null {
  for (const cells of preamble) {
    const [first = '', ...rest] = cells.map((c) => c.trim());
    if (!/^last updated/i.test(first)) continue;
    const inline = first.replace(/^last updated\s*:?\s*/i, '');
    return inline || rest.find(Boolean) || null;
  }
  return null;
}

/** Parses ConList.csv. Throws when the header lacks Name 6, Group Type or Group ID, or an entity lacks its Group ID. */
export function parseOfsiConListCsv(text: string): ParsedSanctionsList {
  checkSize(text, CSV_WHAT);
  const table = readCsvTable(text, { delimiter: ',', required: CSV_REQUIRED, what: CSV_WHAT });
  const collector = new ListingCollector(LIST);
  for (const { line, cells } of table.rows) {
    const row = {
      type: cells[CSV.type] ?? '',
      group: cells[CSV.group] ?? '',
      parts: CSV.nameParts.map((c) => cells[c] ?? ''),
      nonLatin: cells[CSV.nonLatin] ?? '',
    };
    addRow(collector, row, `line ${line}`, CSV_WHAT);
  }
  return collector.result(CSV_WHAT, lastUpdated(table.preamble));
}

/** Parses ConList.xml. Throws when it is not that document or an entity lacks its GroupID. */
export function parseOfsiConListXml(text: string): ParsedSanctionsList {
  checkSize(text, XML_WHAT);
  const collector = new ListingCollector(LIST);
  let index = 0;
  readXmlRecords(text, { what: XML_WHAT, roots: ['ArrayOfFinancialSanctionsTarget'], record: 'FinancialSanctionsTarget' }, (target) => {
    index += 1;
    const row = {
      type: childText(target, XML.type),
      group: childText(target, XML.group),
      parts: XML.nameParts.map((c) => childText(target, c)),
      nonLatin: childText(target, XML.nonLatin),
    };
    addRow(collector, row, `<FinancialSanctionsTarget> number ${index}`, XML_WHAT);
  });
  return collector.result(XML_WHAT, null);
}

/** Parses the OFSI consolidated list in either published form, told apart by the first character. */
export function parseOfsiConList(text: string): ParsedSanctionsList {
  return looksLikeXml(text) ? parseOfsiConListXml(text) : parseOfsiConListCsv(text);
}
