/** Importer for the EU consolidated list of persons, groups and entities subject to financial sanctions (FSF), XML or CSV. */
import type { ParsedSanctionsList } from './listing.js';
import { checkSize, ListingCollector, looksLikeXml } from './listing.js';
import { readCsvTable } from './csv.js';
import { childrenNamed, readXmlRecords } from './xml.js';

/*
 * Published by the European Commission's Financial Sanctions Files service (https://webgate.ec.europa.eu/fsd/fsf,
 * "Consolidated list of persons, groups and entities subject to EU financial sanctions", XML 1.1 and CSV 1.1;
 * also listed on data.europa.eu).
 *
 * XML shape, as OpenSanctions reads it (opensanctions/opensanctions, zavod/zavod/shed/fsf.py, called by
 * datasets/eu/fsf/crawler.py; download URL and subject types in datasets/eu/fsf/eu_fsf.yml): an <export>
 * root in the namespace http://eu.europa.ec/fpi/fsd/export, with a generationDate attribute, holding one
 * <sanctionEntity euReferenceNumber="EU.1234.56" logicalId="789" ...> per listing. Each has a
 * <subjectType code="person|enterprise" classificationCode="P|E"/>, one <nameAlias wholeName="..."
 * firstName="..." lastName="..." nameLanguage="..." strong="true|false" .../> per name, and regulations,
 * addresses, birth dates, identifications and citizenships beside them. euReferenceNumber can be empty.
 *
 * CSV shape, as moov-io/watchman reads it (pkg/sources/csl_eu/csl.go, all 118 column positions, and
 * reader_eu.go; checked against a real extract in reader_eu_test.go): ";"-separated with a header line,
 * UTF-8 with a byte order mark, one line per sub-element of an entity, the entity's columns repeated on
 * each: fileGenerationDate, Entity_LogicalId, Entity_EU_ReferenceNumber, ..., Entity_SubjectType ("P"/"E"),
 * Entity_SubjectType_ClassificationCode ("person"/"enterprise"), ..., NameAlias_LastName, NameAlias_FirstName,
 * NameAlias_MiddleName, NameAlias_WholeName, ..., then the Address_, BirthDate_, Identification_ and
 * Citizenship_ columns. A line without a NameAlias_WholeName is another sub-element's line. Either subject
 * type column is read, as the two files word the type differently.
 */

const LIST = 'eu-fsf';
const XML_WHAT = 'EU financial sanctions list XML';
const CSV_WHAT = 'EU financial sanctions list CSV';

const CSV_COLUMNS = {
  generated: 'fileGenerationDate',
  logicalId: 'Entity_LogicalId',
  reference: 'Entity_EU_ReferenceNumber',
  subjectType: 'Entity_SubjectType',
  classification: 'Entity_SubjectType_ClassificationCode',
  wholeName: 'NameAlias_WholeName',
  firstName: 'NameAlias_FirstName',
  middleName: 'NameAlias_MiddleName',
  lastName: 'NameAlias_LastName',
} as const;

/** True when any of the subject type values says enterprise ("enterprise" or its letter "E"). */
function isEnterprise(values: readonly string[]): boolean {
  return values.some((v) => ['enterprise', 'e'].includes(v.trim().toLowerCase()));
}

/** The subject type as the file words it, for the skipped counts. */
function typeLabel(values: readonly string[]): string {
  return values.map((v) => v.trim()).find(Boolean) ?? '';
}

function wholeName(whole: string | undefined, parts: ReadonlyArray<string | undefined>): string {
  return (
    whole?.trim() ||
    parts
      .map((p) => p?.trim())
      .filter(Boolean)
      .join(' ')
  );
}

/** Parses the FSF XML export. Throws when it is not that document or a listing has neither reference. */
export function parseEuFsfXml(text: string): ParsedSanctionsList {
  checkSize(text, XML_WHAT);
  const collector = new ListingCollector(LIST);
  let index = 0;
  const header = readXmlRecords(text, { what: XML_WHAT, roots: ['export'], record: 'sanctionEntity' }, (entity) => {
    index += 1;
    const reference = entity.attributes.euReferenceNumber?.trim() || entity.attributes.logicalId?.trim() || '';
    if (!reference) throw new Error(`${XML_WHAT}: <sanctionEntity> number ${index} has neither euReferenceNumber nor logicalId`);
    const subject = childrenNamed(entity, 'subjectType')[0]?.attributes ?? {};
    const types = [subject.code ?? '', subject.classificationCode ?? ''];
    if (!isEnterprise(types)) {
      collector.skip(typeLabel(types), reference);
      return;
    }
    for (const alias of childrenNamed(entity, 'nameAlias')) {
      const a = alias.attributes;
      collector.addName(reference, wholeName(a.wholeName, [a.firstName, a.middleName, a.lastName]));
    }
  });
  return collector.result(XML_WHAT, header.rootAttributes.generationDate?.trim() || null);
}

/** Parses the FSF CSV export. Throws when the header lacks the columns it needs or a line has no Entity_LogicalId. */
export function parseEuFsfCsv(text: string): ParsedSanctionsList {
  checkSize(text, CSV_WHAT);
  const c = CSV_COLUMNS;
  const table = readCsvTable(text, { delimiter: ';', required: [c.logicalId, c.wholeName], what: CSV_WHAT });
  if (!table.header.includes(c.subjectType) && !table.header.includes(c.classification)) {
    throw new Error(`${CSV_WHAT}: header is missing the subject type: neither "${c.classification}" nor "${c.subjectType}"`);
  }
  // The subject type is on every line of an entity in the export, but is read once per entity so a line that omits it does not matter.
  const types = new Map<string, string[]>();
  for (const { line, cells } of table.rows) {
    const id = cells[c.logicalId] ?? '';
    if (!id) throw new Error(`${CSV_WHAT}: line ${line}: no ${c.logicalId}`);
    const values = [cells[c.classification] ?? '', cells[c.subjectType] ?? ''];
    if (!types.has(id) || !typeLabel(types.get(id) ?? [])) types.set(id, values);
  }
  const collector = new ListingCollector(LIST);
  for (const { cells } of table.rows) {
    const id = cells[c.logicalId] as string;
    const reference = cells[c.reference] || id;
    const entityTypes = types.get(id) ?? [];
    if (!isEnterprise(entityTypes)) {
      collector.skip(typeLabel(entityTypes), reference);
      continue;
    }
    collector.addName(reference, wholeName(cells[c.wholeName], [cells[c.firstName], cells[c.middleName], cells[c.lastName]]));
  }
  const generated = table.rows.map((r) => r.cells[c.generated]).find(Boolean) ?? null;
  return collector.result(CSV_WHAT, generated);
}

/** Parses the FSF export in either form, told apart by the first character. */
export function parseEuFsf(text: string): ParsedSanctionsList {
  return looksLikeXml(text) ? parseEuFsfXml(text) : parseEuFsfCsv(text);
}
