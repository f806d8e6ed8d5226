import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import {
  InsurerIndex,
  REGISTER_FORMATS,
  parseDemoInsurers,
  parseDeVuCsv,
  parseEiopaRegisterCsv,
  parseFcaFirmRecords,
  parseFrAcamCsv,
  parseRegisterFile,
  seedRegister,
} from '../../connector/src/insurers/index.js';
import type { InsurerRecord, InsurerStore } from '../../connector/src/store/types.js';

const DATA_DIR = fileURLToPath(new URL('../../connector/data/register/', import.meta.url));
const shipped = (file: string): string => readFileSync(DATA_DIR + file, 'utf8');
const NOW = '2026-03-01T12:00:00.000Z';

const EIOPA_COLUMNS = [
  'International Name',
  'Name of NCA',
  'Home Country',
  'Identification code',
  'LEI',
  'Official name of the entity',
  'Cross border status',
  'EU Country where the entity operates',
  'Local/Commercial name',
  'Registration start date',
  'Registration end date',
  'Street Name',
  'Street Number',
  'Post Code',
  'City',
  'County',
  'Website address',
  'Operation Start Date',
  'Operation End Date',
];

/** An EIOPA export line: every field quoted, ";" separated, trailing ";" as in the real file. */
function eiopaLine(values: string[]): string {
  return values.map((v) => `"${v.replace(/"/g, '""')}"`).join(';') + ';';
}

function eiopaRow(fields: Partial<Record<string, string>>): string {
  return eiopaLine(EIOPA_COLUMNS.map((c) => fields[c] ?? ''));
}

function eiopaFile(rows: Array<Partial<Record<string, string>>>, columns = EIOPA_COLUMNS): string {
  return [eiopaLine(columns), ...rows.map(eiopaRow)].join('\r\n') + '\r\n';
}

const byRef = (records: InsurerRecord[], country: string, reference: string): InsurerRecord | undefined =>
  records.find((r) => r.country === country && r.reference === reference);

describe('EIOPA register importer', () => {
  it('parses the shipped sample: six DE undertakings under their BaFin numbers', () => {
    const records = parseEiopaRegisterCsv(shipped('eiopa_register_sample.csv'), NOW);
    expect(records.map((r) => r.reference).sort()).toEqual(['5080', '5096', '5165', '5170', '5178', '5370']);
    for (const r of records) {
      expect(r).toMatchObject({
        country: 'DE',
        scheme: 'bafin_reg_nr',
        regulated: 'YES',
        authorised: true,
        source: 'eiopa-register',
        priority: 30,
        demo: false,
        updated_at: NOW,
      });
    }
    const hdi = byRef(records, 'DE', '5096');
    expect(hdi?.name).toBe('HDI Global SE');
    expect(hdi?.aliases).toEqual(['HDI-Gerling Industrie Versicherung AG']);
    expect(hdi?.lei).toBe('529900HLKNZ5YWV20989');
    expect(hdi?.source_detail).toContain('5096ES (EEA FPS, operates in HR)');
    expect(byRef(records, 'DE', '5370')?.name).toBe('Allianz Global Corporate & Specialty SE');
  });

  it('finds a branch-coded undertaking by its base number and by the raw branch code', () => {
    const index = new InsurerIndex(parseEiopaRegisterCsv(shipped('eiopa_register_sample.csv'), NOW));
    expect(index.byReference('DE', '5096ES')?.name).toBe('HDI Global SE');
    expect(index.byReference('DE', '5096')?.name).toBe('HDI Global SE');
    expect(index.byReference('DE', ' 5370dk ')?.name).toBe('Allianz Global Corporate & Specialty SE');
    expect(index.byReference('DE', '5097ES')).toBeNull();
    expect(index.byReference('FR', '5096')).toBeNull();
  });

  it('rejects a file whose header lacks required columns, naming them', () => {
    const columns = EIOPA_COLUMNS.filter((c) => c !== 'Home Country' && c !== 'LEI');
    expect(() => parseEiopaRegisterCsv(eiopaFile([], columns), NOW)).toThrow(
      'EIOPA register CSV: header is missing required column(s): "Home Country", "LEI"',
    );
  });

  it('rejects a comma-separated file (wrong delimiter) as missing its columns', () => {
    const text = EIOPA_COLUMNS.join(',') + '\nx,y\n';
    expect(() => parseEiopaRegisterCsv(text, NOW)).toThrow(/missing required column\(s\): "International Name"/);
  });

  it('files domestic rows at home, incoming cross-border rows under home:code, and drops other countries', () => {
    const text = eiopaFile([
      {
        'International Name': 'Domestic Demo Versicherung AG',
        'Official name of the entity': 'Domestic Demo Versicherung AG',
        'Home Country': 'DE',
        'Identification code': '9001',
        'Cross border status': 'Domestic undertaking',
        'EU Country where the entity operates': 'DE',
        LEI: 'LEI9001',
      },
      {
        'International Name': 'Domestic Demo FPS name',
        'Official name of the entity': 'Domestic Demo FPS name',
        'Home Country': 'DE',
        'Identification code': '9001AT',
        'Cross border status': 'EEA FPS',
        'EU Country where the entity operates': 'AT',
      },
      {
        'International Name': 'Ended Demo AG',
        'Official name of the entity': 'Ended Demo AG',
        'Home Country': 'DE',
        'Identification code': '9002',
        'Cross border status': 'Domestic undertaking',
        'EU Country where the entity operates': 'DE',
        'Registration end date': '31/12/2020 00:00:00',
      },
      {
        'International Name': 'Future End Demo AG',
        'Official name of the entity': 'Future End Demo AG',
        'Home Country': 'DE',
        'Identification code': '9003',
        'Cross border status': 'Domestic undertaking',
        'Operation End Date': '31/12/2030 00:00:00',
      },
      {
        'International Name': 'Gallic Demo Assurances SA',
        'Official name of the entity': 'Gallic Demo Assurances SA',
        'Home Country': 'FR',
        'Identification code': '12345678',
        'Cross border status': 'EEA FPS',
        'EU Country where the entity operates': 'DE',
        'Local/Commercial name': 'Gallic Demo Versicherung',
      },
      {
        'International Name': 'Britannic Demo Insurance Limited',
        'Official name of the entity': 'Britannic Demo Insurance Limited',
        'Home Country': 'GB',
        'Identification code': '999999',
        'Cross border status': 'Domestic undertaking',
        'EU Country where the entity operates': 'GB',
        'Registration end date': '31/01/2021 00:00:00',
      },
      {
        'International Name': 'Maltese Demo Ltd',
        'Official name of the entity': 'Maltese Demo Ltd',
        'Home Country': 'MT',
        'Identification code': 'C 1',
        'Cross border status': 'Domestic undertaking',
        'EU Country where the entity operates': 'MT',
      },
    ]);
    const records = parseEiopaRegisterCsv(text, NOW);
    expect(records.map((r) => `${r.country}/${r.reference}`).sort()).toEqual([
      'DE/9001',
      'DE/9002',
      'DE/9003',
      'DE/FR:12345678',
      'FR/12345678',
      'UK/999999',
    ]);
    expect(byRef(records, 'DE', '9001')).toMatchObject({
      name: 'Domestic Demo Versicherung AG',
      aliases: ['Domestic Demo FPS name'],
      authorised: true,
      lei: 'LEI9001',
    });
    expect(byRef(records, 'DE', '9002')?.authorised).toBe(false);
    expect(byRef(records, 'DE', '9003')?.authorised).toBe(true);
    expect(byRef(records, 'DE', 'FR:12345678')).toMatchObject({
      scheme: 'eiopa_id',
      name: 'Gallic Demo Assurances SA',
      aliases: ['Gallic Demo Versicherung'],
    });
    expect(byRef(records, 'FR', '12345678')?.scheme).toBe('eiopa_id');
    expect(byRef(records, 'UK', '999999')).toMatchObject({ authorised: false, scheme: 'eiopa_id' });
  });
});

describe('FCA register importer', () => {
  const firm = (frn: string, name: string, status: string) => ({
    FRN: frn,
    'Organisation Name': name,
    Status: status,
    'Status Effective Date': '01/12/2001',
    'Business Type': 'Regulated',
  });
  const response = (...firms: object[]) => ({
    Status: 'FSR-API-02-01-00',
    ResultInfo: { page: '1', per_page: '1', total_count: String(firms.length) },
    Message: 'Ok. Firm Found',
    Data: firms,
  });
  const notFound = { Status: 'FSR-API-02-01-21', ResultInfo: null, Message: 'Account Not Found', Data: null };

  it('parses a single firm API response', () => {
    const [rec, ...rest] = parseFcaFirmRecords(
      JSON.stringify(response(firm('900001', 'Fictional Motor Insurance Limited', 'Authorised'))),
      NOW,
    );
    expect(rest).toEqual([]);
    expect(rec).toMatchObject({
      country: 'UK',
      reference: '900001',
      scheme: 'fca_frn',
      name: 'Fictional Motor Insurance Limited',
      regulated: 'YES',
      authorised: true,
      source: 'fca-register',
      priority: 30,
      demo: false,
      updated_at: NOW,
    });
    expect(rec?.source_detail).toContain('status "Authorised" since 01/12/2001');
  });

  it('parses an array of responses and skips not-found responses', () => {
    const text = JSON.stringify([
      response(firm('900001', 'Fictional A Ltd', 'Authorised')),
      notFound,
      response(firm('900002', 'Fictional B Ltd', 'No longer authorised')),
    ]);
    const records = parseFcaFirmRecords(text, NOW);
    expect(records.map((r) => [r.reference, r.authorised])).toEqual([
      ['900001', true],
      ['900002', false],
    ]);
  });

  it('parses JSON Lines of responses and arrays; a later record for an FRN wins', () => {
    const text = [
      JSON.stringify(response(firm('900001', 'Fictional A Ltd', 'Authorised'))),
      '',
      JSON.stringify([response(firm('900003', 'Fictional C Ltd', 'EEA Authorised'))]),
      JSON.stringify(response(firm('900001', 'Fictional A Ltd', 'No longer authorised'))),
    ].join('\n');
    const records = parseFcaFirmRecords(text, NOW);
    expect(records.map((r) => [r.reference, r.authorised])).toEqual([
      ['900001', false],
      ['900003', true],
    ]);
  });

  it('parses the firm search CSV export and maps statuses', () => {
    const text = [
      'FRN,Organisation Name,Status,Town',
      '900001,Fictional A Ltd,Authorised,London',
      '900004,"Fictional D, Registered Ltd",Registered,Leeds',
      '9000050,Fictional E Ltd,Appointed representative,York',
    ].join('\n');
    const records = parseFcaFirmRecords(text, NOW);
    expect(records.map((r) => [r.reference, r.name, r.authorised])).toEqual([
      ['900001', 'Fictional A Ltd', true],
      ['900004', 'Fictional D, Registered Ltd', false],
      ['9000050', 'Fictional E Ltd', false],
    ]);
    expect(records.every((r) => r.kind === 'insurer' && r.status_text !== null)).toBe(true);
  });

  it('a Kind column marks intermediaries, which firm records alone cannot tell', () => {
    const records = parseFcaFirmRecords(
      'FRN,Organisation Name,Status,Kind\n900001,Fictional Broker Ltd,Authorised,intermediary\n900002,Fictional Insurer plc,Authorised,insurer\n',
      NOW,
    );
    expect(records.map((r) => [r.reference, r.kind])).toEqual([
      ['900001', 'intermediary'],
      ['900002', 'insurer'],
    ]);
  });

  it('rejects a CSV without the FRN column, an unknown JSON shape and a firm without FRN', () => {
    expect(() => parseFcaFirmRecords('Firm,Status\nX,Authorised\n', NOW)).toThrow(
      /missing required column\(s\): "FRN", "Organisation Name"/,
    );
    expect(() => parseFcaFirmRecords('{"firms": []}', NOW)).toThrow(/neither an FCA API response/);
    expect(() => parseFcaFirmRecords(JSON.stringify(response({ 'Organisation Name': 'No FRN Ltd', FRN: '' })), NOW)).toThrow(
      /no valid FRN/,
    );
    expect(() => parseFcaFirmRecords('{"Data": [\n{oops\n', NOW)).toThrow(/line 1 is not valid JSON/);
  });
});

describe('DE VU list importer', () => {
  const records = parseDeVuCsv(shipped('de_motor_insurers_vu_numbers.csv'), NOW);

  it('turns the 223 listed numbers into 223 DE records with their 4-digit numbers', () => {
    expect(records).toHaveLength(223);
    expect(new Set(records.map((r) => r.reference)).size).toBe(223);
    expect(
      records.every(
        (r) =>
          /^\d{4}$/.test(r.reference) &&
          r.country === 'DE' &&
          r.scheme === 'bafin_reg_nr' &&
          r.priority === 20 &&
          r.source === 'de-vu-list',
      ),
    ).toBe(true);
    expect(byRef(records, 'DE', '0028')?.name).toBe('Admiral Insurance Company Limited (AIC L)');
    expect(records[0]?.source_detail).toContain('not an official BaFin extract');
  });

  it('uses the EIOPA cross-check name as canonical and keeps the listed label as an alias', () => {
    expect(byRef(records, 'DE', '5456')).toMatchObject({
      name: 'GENERALI Versicherung Aktiengesellschaft',
      aliases: ['Thuringia Generali Versicherung AG'],
    });
    expect(byRef(records, 'DE', '5080')).toMatchObject({
      name: 'KRAVAG-LOGISTIC Versicherungs-Aktiengesellschaft',
      lei: '529900723AYJN3N3YV02',
    });
  });

  it('marks a row that only names a former insurer as not authorised', () => {
    expect(byRef(records, 'DE', '5480')).toMatchObject({
      name: 'Württembergische und Badische Versicherungs-Aktiengesellschaft',
      authorised: false,
    });
    expect(records.filter((r) => !r.authorised).map((r) => r.reference)).toEqual(['5480']);
  });

  it('cleans labels: odd quotes, c/o claims handlers, former names as aliases', () => {
    expect(byRef(records, 'DE', '5586')?.name).toBe('Schweiz Allgemeine Direkt Vers. AG');
    expect(byRef(records, 'DE', '5058')?.name).toBe('KRAVAG-ALLGEMEINE Versicherungs-Aktiengesellschaft');
    expect(byRef(records, 'DE', '5342')).toMatchObject({
      name: 'Generali Deutschland Versicherung AG',
      aliases: ['Volksfürsorge Deutsche Sachversicherung AG'],
    });
    expect(byRef(records, 'DE', '5448')).toMatchObject({
      name: 'Helvetia Versicherungs-AG',
      aliases: ['Schweizer-National Versicherungs-AG in Deutschland'],
    });
  });

  it('rejects a row without a 4-digit number', () => {
    expect(() => parseDeVuCsv('vu_number,insurer_name_as_listed,eiopa_crosscheck_name\n123,X AG,\n', NOW)).toThrow(
      /data row 1 has no 4-digit vu_number: "123"/,
    );
  });
});

describe('FR ACAM list importer', () => {
  const withNames = parseFrAcamCsv(shipped('fr_insurers_acam_codes.csv'), NOW, shipped('fr_insurers_claimsia_codes.csv'));

  it('drops the two pseudo-codes and merges shared codes: 147 rows -> 131 records', () => {
    expect(withNames).toHaveLength(131);
    expect(byRef(withNames, 'FR', '00000001')).toBeUndefined();
    expect(byRef(withNames, 'FR', '00000002')).toBeUndefined();
    expect(withNames.every((r) => r.scheme === 'acam_code' && r.source === 'fr-acam-list' && r.priority === 20)).toBe(true);
  });

  it('makes the MACIF regional labels aliases of one record', () => {
    const macif = byRef(withNames, 'FR', '04560404');
    expect(macif?.name).toBe('MACIF FRANCE');
    expect(macif?.aliases).toHaveLength(12);
    expect(macif?.aliases).toContain('MACIF ILE DE FRANCE');
    expect(macif?.aliases).toContain('MUTUELLE ASSURANCE DES COMMERCANTS ET INDUSTRIELS DE France');
    expect(byRef(withNames, 'FR', '02000402')?.aliases).toEqual(['ALLIANZ EUROCOURTAGE']);
  });

  it('adds Claims IA legal names only where they clearly match', () => {
    expect(byRef(withNames, 'FR', '04550404')?.aliases).toEqual(['MUTUELLE ASSURANCE DES INSTITUTEURS DE France']);
    // Eleven GROUPAMA regional records: "GROUPAMA ASSURANCES MUTUELLES" belongs to none of them clearly.
    expect(withNames.filter((r) => r.name.startsWith('GROUPAMA')).every((r) => r.aliases.length === 0)).toBe(true);
    const without = parseFrAcamCsv(shipped('fr_insurers_acam_codes.csv'), NOW);
    expect(byRef(without, 'FR', '04550404')?.aliases).toEqual([]);
  });

  it('writes the source\'s "§" as "&"', () => {
    expect(byRef(withNames, 'FR', '84810402')?.name).toBe('ALLIANZ GLOBAL CORPORATE & SPECIALTY');
  });
});

describe('demo insurer importer', () => {
  it('parses the eight fictional UK insurers, one of them not authorised', () => {
    const records = parseDemoInsurers(shipped('uk_demo_insurers.csv'), NOW);
    expect(records).toHaveLength(8);
    expect(
      records.every(
        (r) => r.demo && r.country === 'UK' && r.scheme === 'demo' && r.source === 'demo' && r.priority === 10 && r.regulated === 'YES',
      ),
    ).toBe(true);
    expect(records.every((r) => r.name.includes('Demo'))).toBe(true);
    expect(records.filter((r) => !r.authorised).map((r) => r.reference)).toEqual(['DEMO-UK-0007']);
    expect(byRef(records, 'UK', 'DEMO-UK-0001')?.aliases).toEqual(['Albion Demo Motor', 'Albion Demo Car Cover']);
  });

  it('rejects an authorised value other than true/false', () => {
    expect(() => parseDemoInsurers('reference,name,authorised\nDEMO-UK-0001,X Demo Ltd,yes\n', NOW)).toThrow(/expected true or false/);
  });
});

describe('parseRegisterFile and seedRegister', () => {
  it('dispatches every format', () => {
    expect(REGISTER_FORMATS).toEqual(['eiopa', 'fca', 'uk-frn', 'de-vu', 'fr-acam', 'demo']);
    expect(parseRegisterFile('uk-frn', shipped('uk_insurers_frn.csv'), NOW)).toHaveLength(35);
    expect(parseRegisterFile('eiopa', shipped('eiopa_register_sample.csv'), NOW)).toHaveLength(6);
    expect(parseRegisterFile('de-vu', shipped('de_motor_insurers_vu_numbers.csv'), NOW)).toHaveLength(223);
    expect(
      parseRegisterFile('fr-acam', shipped('fr_insurers_acam_codes.csv'), NOW, {
        claimsIaNamesText: shipped('fr_insurers_claimsia_codes.csv'),
      }),
    ).toHaveLength(131);
    expect(parseRegisterFile('demo', shipped('uk_demo_insurers.csv'), NOW)).toHaveLength(8);
    expect(parseRegisterFile('fca', 'FRN,Organisation Name,Status\n900001,Fictional A Ltd,Authorised\n', NOW)).toHaveLength(1);
  });

  it('loads every shipped file into the store', async () => {
    const rows: InsurerRecord[] = [];
    const insurers: InsurerStore = {
      async upsertMany(batch) {
        rows.push(...batch);
        return batch.length;
      },
      async listByCountry(country) {
        return rows.filter((r) => r.country === country);
      },
      async get(country, reference) {
        return rows.find((r) => r.country === country && r.reference === reference) ?? null;
      },
      async count() {
        return rows.length;
      },
      async version() {
        return rows.length;
      },
    };
    const result = await seedRegister({ insurers }, DATA_DIR, NOW);
    expect(result).toEqual({ loaded: 403, byFormat: { eiopa: 6, 'de-vu': 223, 'fr-acam': 131, 'uk-frn': 35, demo: 8 } });
    expect(rows.every((r) => r.updated_at === NOW)).toBe(true);
  });
});

describe('uk-frn: the UK register extract with real FRNs', () => {
  const rows = parseRegisterFile('uk-frn', shipped('uk_insurers_frn.csv'), NOW);
  const byFrn = (frn: string) => rows.find((r) => r.reference === frn)!;

  it('loads 15 insurers and 20 intermediaries, real and with their source', () => {
    expect(rows.filter((r) => r.kind === 'insurer')).toHaveLength(15);
    expect(rows.filter((r) => r.kind === 'intermediary')).toHaveLength(20);
    expect(rows.every((r) => !r.demo && r.country === 'UK' && r.scheme === 'fca_frn' && r.source === 'uk-register-extract')).toBe(true);
    expect(byFrn('113849').source_detail).toContain('source FCAAPI;FSRAPI');
  });

  it('keeps the status as stated; an empty one is unknown, not "not authorised"', () => {
    expect(byFrn('113849')).toMatchObject({
      name: 'Hiscox Insurance Company Limited',
      authorised: true,
      status_text: 'Authorised',
      aliases: ['Hiscox'],
    });
    expect(byFrn('203342')).toMatchObject({ authorised: false, status_text: 'No longer authorised' });
    expect(byFrn('202664')).toMatchObject({ authorised: true, status_text: 'Deemed authorised' });
    expect(byFrn('202684')).toMatchObject({ name: 'Direct Line Insurance PLC', authorised: false, status_text: null });
  });

  it('follows the FCA API on the one conflict: 536726 is I Go 4 Ltd., an intermediary; UKI is 202810', () => {
    expect(byFrn('536726')).toMatchObject({ name: 'I Go 4 Ltd.', kind: 'intermediary' });
    expect(byFrn('202810')).toMatchObject({ name: 'U K Insurance Limited', kind: 'insurer' });
  });

  it('refuses a row it cannot read, naming it', () => {
    const head = 'frn,name,trading_names,kind,lines,status,source_ref,notes\n';
    expect(() => parseRegisterFile('uk-frn', head + '12,Tiny Ltd,,insurer,,Authorised,X,\n', NOW)).toThrow(/row 1 has no valid FRN/);
    expect(() => parseRegisterFile('uk-frn', head + '900001,A Ltd,,bank,,Authorised,X,\n', NOW)).toThrow(/kind "bank"/);
    expect(() => parseRegisterFile('uk-frn', head + '900001,A Ltd,,insurer,,Maybe,X,\n', NOW)).toThrow(/status "Maybe"/);
    expect(() => parseRegisterFile('uk-frn', 'frn,name\n900001,A\n', NOW)).toThrow(/missing required column/);
  });
});
