import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  parseEuFsf,
  parseEuFsfCsv,
  parseEuFsfXml,
  parseOfsiConList,
  parseOfsiConListCsv,
  parseOfsiConListXml,
  parseSanctionsFile,
  parseUkSanctionsListXml,
  type ParsedSanctionsList,
} from '../../connector/src/sanctions/importers/index.js';
import { SanctionsIndex } from '../../connector/src/sanctions/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/sanctions/', import.meta.url));
const fixture = (file: string): string => readFileSync(FIXTURES + file, 'utf8');

const pairs = (p: ParsedSanctionsList): string[][] => p.records.map((r) => [r.reference ?? '', r.name]);

/** Every row is a real (not demo) listing of the parsed list that applies to every country. */
function expectPlainRows(p: ParsedSanctionsList): void {
  for (const r of p.records) expect(r).toMatchObject({ list: p.list, country: null, demo: false });
}

describe('OFSI consolidated list', () => {
  it('reads ConList.csv: entities only, one row per distinct name, referenced by Group ID', () => {
    const p = parseOfsiConListCsv(fixture('ofsi-conlist.csv'));
    expect(p).toMatchObject({ kind: 'OFSI consolidated list CSV', list: 'uk-ofsi', published: '15/05/2026', entities: 3 });
    // One listing each, however many name rows it has (the individual has two).
    expect(p.skipped).toEqual({ Individual: 1, Ship: 1 });
    expect(pairs(p)).toEqual([
      ['90001', 'EXAMPLE SANCTIONED INSURANCE COMPANY LIMITED'],
      // "... Ltd", the primary name variation, folds to the same key and is kept once.
      ['90001', 'ПРИМЕР СТРАХОВАЯ КОМПАНИЯ'],
      ['90001', 'ESIC ASSURANCE'],
      ['90002', 'COMPAÑÍA ASEGURADORA FICTICIA DEL NORTE S.A.'],
      ['90002', 'ASEGURADORA FICTICIA NORTEÑA S.A.'],
      // Its Other Information holds commas, quotes and a line break: the columns after it still line up.
      ['90005', 'NORTHWIND FICTIONAL TRADING LLC'],
    ]);
    expectPlainRows(p);
  });

  it('reads ConList.xml: the same fields as elements, entities decoded, nil cells empty', () => {
    const p = parseOfsiConListXml(fixture('ofsi-conlist.xml'));
    expect(p).toMatchObject({
      kind: 'OFSI consolidated list XML',
      list: 'uk-ofsi',
      published: null,
      entities: 2,
      skipped: { Individual: 1, Ship: 1 },
    });
    expect(pairs(p)).toEqual([
      ['90001', 'EXAMPLE SANCTIONED INSURANCE COMPANY LIMITED'],
      ['90001', 'ПРИМЕР СТРАХОВАЯ КОМПАНИЯ'],
      ['90001', 'ESIC ASSURANCE'],
      ['90006', 'FICTIVE RE & PARTNERS GMBH'],
    ]);
    expectPlainRows(p);
  });

  it('tells the two forms apart by their first character', () => {
    expect(parseOfsiConList(fixture('ofsi-conlist.csv')).kind).toBe('OFSI consolidated list CSV');
    expect(parseOfsiConList(`\ufeff${fixture('ofsi-conlist.xml')}`).kind).toBe('OFSI consolidated list XML');
  });

  it('reads columns by name: another order and no "Last Updated" line still parse', () => {
    const p = parseOfsiConListCsv(
      'Group ID,Group Type,Name 1,Name 6\r\n77,Entity,Fictional,Holdings PLC\r\n78,Individual,Testperson,GAMMA\r\n,,,\r\n',
    );
    expect(pairs(p)).toEqual([['77', 'Fictional Holdings PLC']]);
    expect(p).toMatchObject({ published: null, entities: 1, skipped: { Individual: 1 } });
  });
});

describe('UK Sanctions List XML', () => {
  it('reads <Designation>s: entities only, names and non-Latin names, referenced by UniqueID', () => {
    const p = parseUkSanctionsListXml(fixture('uk-sanctions-list.xml'));
    expect(p).toMatchObject({
      kind: 'UK Sanctions List XML',
      list: 'uk-fcdo',
      published: '15/05/2026',
      entities: 2,
      skipped: { Individual: 1, Ship: 1 },
    });
    expect(pairs(p)).toEqual([
      ['RUS9001', 'EXAMPLE SANCTIONED INSURANCE COMPANY LIMITED'],
      ['RUS9001', 'ESIC ASSURANCE'],
      ['RUS9001', 'ПРИМЕР СТРАХОВАЯ КОМПАНИЯ'],
      ['VEN9002', 'COMPAÑÍA ASEGURADORA FICTICIA DEL NORTE S.A.'],
    ]);
    expectPlainRows(p);
  });
});

/** The first 21 of the export's 118 columns, as named in its header; the rest are address, birth, identity and citizenship columns. */
const EU_CSV_COLUMNS = [
  'fileGenerationDate',
  'Entity_LogicalId',
  'Entity_EU_ReferenceNumber',
  'Entity_UnitedNationId',
  'Entity_DesignationDate',
  'Entity_DesignationDetails',
  'Entity_Remark',
  'Entity_SubjectType',
  'Entity_SubjectType_ClassificationCode',
  'Entity_Regulation_Type',
  'Entity_Regulation_OrganisationType',
  'Entity_Regulation_PublicationDate',
  'Entity_Regulation_EntryIntoForceDate',
  'Entity_Regulation_NumberTitle',
  'Entity_Regulation_Programme',
  'Entity_Regulation_PublicationUrl',
  'NameAlias_LastName',
  'NameAlias_FirstName',
  'NameAlias_MiddleName',
  'NameAlias_WholeName',
  'NameAlias_NameLanguage',
];

function euCsvLine(fields: Partial<Record<string, string>>): string {
  return EU_CSV_COLUMNS.map((c) => {
    const v = fields[c] ?? '';
    return /[;"\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
  }).join(';');
}

function euCsv(rows: Array<Partial<Record<string, string>>>): string {
  const entity = (id: string, ref: string, letter: string, code: string) => ({
    fileGenerationDate: '15/05/2026',
    Entity_LogicalId: id,
    Entity_EU_ReferenceNumber: ref,
    Entity_SubjectType: letter,
    Entity_SubjectType_ClassificationCode: code,
    Entity_Regulation_Programme: 'UKR',
  });
  const lines = rows.map((r) => euCsvLine({ ...entity(r.id ?? '', r.ref ?? '', r.letter ?? '', r.code ?? ''), ...r }));
  return `\ufeff${EU_CSV_COLUMNS.join(';')}\r\n${lines.join('\r\n')}\r\n`;
}

describe('EU financial sanctions list', () => {
  it('reads the XML export: enterprises only, every nameAlias, euReferenceNumber or else logicalId', () => {
    const p = parseEuFsfXml(fixture('eu-fsf.xml'));
    expect(p).toMatchObject({
      kind: 'EU financial sanctions list XML',
      list: 'eu-fsf',
      published: '2026-05-15T10:00:00.000+02:00',
      entities: 3,
    });
    expect(p.skipped).toEqual({ person: 1 });
    expect(pairs(p)).toEqual([
      ['EU.9001.12', 'Example Sanctioned Insurance Company Limited'],
      ['EU.9001.12', 'ESIC Versicherung AG'],
      ['EU.9001.12', 'Пример страховая компания'],
      ['EU.9002.34', "Société Fictive d'Assurances du Nord"],
      ['EU.9002.34', 'Fictive Re & Partners'],
      ['900004', 'Northwind Fictional Trading LLC'],
    ]);
    expectPlainRows(p);
  });

  it('reads the CSV export: one line per sub-element, names grouped by entity, either subject type column', () => {
    const text = euCsv([
      {
        id: '900001',
        ref: 'EU.9001.12',
        letter: 'E',
        code: 'enterprise',
        NameAlias_WholeName: 'Example Sanctioned Insurance Company Limited',
        NameAlias_NameLanguage: 'EN',
      },
      {
        id: '900001',
        ref: 'EU.9001.12',
        letter: 'E',
        code: 'enterprise',
        NameAlias_WholeName: 'ESIC Versicherung AG',
        NameAlias_NameLanguage: 'DE',
      },
      // An address line of the same entity: no name.
      { id: '900001', ref: 'EU.9001.12', letter: 'E', code: 'enterprise' },
      {
        id: '900003',
        ref: 'EU.9003.56',
        letter: 'P',
        code: 'person',
        NameAlias_FirstName: 'Testperson',
        NameAlias_LastName: 'Beta',
        NameAlias_WholeName: 'Testperson Beta',
      },
      // Only the letter column filled, an empty reference, and a quoted ";" in the name.
      { id: '900004', letter: 'E', NameAlias_WholeName: 'Northwind; Fictional "Trading" LLC' },
    ]);
    const p = parseEuFsfCsv(text);
    expect(p).toMatchObject({
      kind: 'EU financial sanctions list CSV',
      list: 'eu-fsf',
      published: '15/05/2026',
      entities: 2,
      skipped: { person: 1 },
    });
    expect(pairs(p)).toEqual([
      ['EU.9001.12', 'Example Sanctioned Insurance Company Limited'],
      ['EU.9001.12', 'ESIC Versicherung AG'],
      ['900004', 'Northwind; Fictional "Trading" LLC'],
    ]);
    expect(parseEuFsf(text).kind).toBe('EU financial sanctions list CSV');
    expect(parseEuFsf(fixture('eu-fsf.xml')).kind).toBe('EU financial sanctions list XML');
  });
});

describe('matching the imported names', () => {
  it('finds the fictional insurer under any listed name, for every country, and never the skipped person', () => {
    const index = new SanctionsIndex([
      ...parseOfsiConListCsv(fixture('ofsi-conlist.csv')).records,
      ...parseEuFsfXml(fixture('eu-fsf.xml')).records,
    ]);
    for (const country of ['UK', 'DE', 'FR'] as const) {
      expect(index.find(country, ['Example Sanctioned Insurance Company Ltd'])).toMatchObject({ list: 'uk-ofsi', reference: '90001' });
    }
    expect(index.find('DE', ['esic assurance'])?.reference).toBe('90001');
    expect(index.find('FR', ['Compania Aseguradora Ficticia del Norte SA'])?.reference).toBe('90002');
    expect(index.find('FR', ['Societe Fictive d Assurances du Nord'])).toMatchObject({ list: 'eu-fsf', reference: 'EU.9002.34' });
    expect(index.find('UK', ['Testperson Alpha FICTIONAL'])).toBeNull();
    expect(index.find('UK', ['Testperson Beta'])).toBeNull();
  });
});

describe('refusing what is not the published format', () => {
  it('names the file kind and the missing columns of a CSV without its header', () => {
    expect(() => parseOfsiConListCsv('Last Updated,15/05/2026\nName,Type,Reference\nX,Entity,1\n')).toThrow(
      'OFSI consolidated list CSV: no header line with the columns "Name 6", "Group Type", "Group ID" in the first 5 lines',
    );
    expect(() => parseEuFsfCsv('fileGenerationDate;Entity_LogicalId\n1;2\n')).toThrow(
      'EU financial sanctions list CSV: no header line with the columns "Entity_LogicalId", "NameAlias_WholeName"',
    );
    expect(() => parseEuFsfCsv('Entity_LogicalId;NameAlias_WholeName\n1;X\n')).toThrow(
      /neither "Entity_SubjectType_ClassificationCode" nor "Entity_SubjectType"/,
    );
  });

  it('refuses an entity without its reference, naming where it is', () => {
    expect(() => parseOfsiConListCsv('Name 6,Group Type,Group ID\nFictional Ltd,Entity,1\nOther Fictional Ltd,Entity,\n')).toThrow(
      'OFSI consolidated list CSV: line 3: an entity without a Group ID',
    );
    expect(() =>
      parseEuFsfXml('<export><sanctionEntity><subjectType code="enterprise"/><nameAlias wholeName="X"/></sanctionEntity></export>'),
    ).toThrow('EU financial sanctions list XML: <sanctionEntity> number 1 has neither euReferenceNumber nor logicalId');
    expect(() =>
      parseUkSanctionsListXml(
        '<Designations><Designation><IndividualEntityShip>Entity</IndividualEntityShip></Designation></Designations>',
      ),
    ).toThrow('UK Sanctions List XML: <Designation> number 1: an entity without a UniqueID');
  });

  it('refuses another document: an HTML page, the wrong list, a truncated file, a list without records', () => {
    expect(() => parseEuFsf('<html><head><title>Service unavailable</title></head><body></body></html>')).toThrow(
      'EU financial sanctions list XML: the root element is <html>, not <export>',
    );
    expect(() => parseOfsiConList(fixture('eu-fsf.xml'))).toThrow(
      'OFSI consolidated list XML: the root element is <export>, not <ArrayOfFinancialSanctionsTarget>',
    );
    const xml = fixture('eu-fsf.xml');
    expect(() => parseEuFsfXml(xml.slice(0, xml.length / 2))).toThrow(/^EU financial sanctions list XML: not well-formed XML \(/);
    expect(() => parseEuFsfXml('<export generationDate="2026-05-15"></export>')).toThrow(
      'EU financial sanctions list XML: no <sanctionEntity> element under <export>',
    );
    expect(() => parseUkSanctionsListXml('')).toThrow('UK Sanctions List XML: the file is empty');
  });

  it('refuses a DOCTYPE, so declared entities are never expanded', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE export [<!ENTITY a "hahahahahahahahahaha">' +
      Array.from(
        { length: 9 },
        (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`,
      ).join('') +
      ']><export><sanctionEntity logicalId="1"><subjectType code="enterprise"/><nameAlias wholeName="&j;"/></sanctionEntity></export>';
    expect(() => parseEuFsfXml(laughs)).toThrow(
      'EU financial sanctions list XML: the document has a DOCTYPE, which the published file does not; refused',
    );
  });

  it('ends quickly on input built to exhaust: deep nesting, a never-closed quote', () => {
    const started = Date.now();
    const deep = `<export>${'<sanctionEntity>'.repeat(50_000)}`;
    expect(() => parseEuFsfXml(deep)).toThrow('EU financial sanctions list XML: elements nest deeper than 32 levels');
    const runaway = `Name 6,Group Type,Group ID\n"${'x'.repeat(2 * 1024 * 1024)}`;
    expect(() => parseOfsiConListCsv(runaway)).toThrow(/^OFSI consolidated list CSV: not readable as CSV/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses to load a file that lists no entity, since it would empty the list', () => {
    const onlyPeople = 'Name 6,Name 1,Group Type,Group ID\nFICTIONAL,Testperson,Individual,1\n';
    expect(parseOfsiConListCsv(onlyPeople).records).toEqual([]);
    expect(() => parseSanctionsFile('ofsi', onlyPeople)).toThrow(
      'OFSI consolidated list CSV: no entity with a name in the file, so it would empty the uk-ofsi list; nothing loaded',
    );
  });
});
