/**
 * A stand-in for the FCA Financial Services Register API (V0.1) on 127.0.0.1: firm search, firm
 * record and firm permissions, in the response shapes the live API was recorded answering
 * (github.com/release-art/fca-api, tests/units/test_raw/resources/ and tests/units/test_client/resources/;
 * connector/src/insurers/online/fca-api.ts lists the files). It checks the X-Auth-Email and X-Auth-Key
 * headers, counts what reaches it, and can be told to hang, fail, rate-limit or answer garbage.
 *
 * The live search's matching is not documented; here a firm matches when the search text is part of
 * its name or of one of its trading names, case aside.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One entry of a permission's details, as listed: {"Customer Type": [...]}, {"Investment Type": [...]}, {"Limitation": [...]}. */
export type PermissionDetail = Record<string, string[]>;

export interface StandinFirm {
  frn: string;
  name: string;
  status: string;
  statusSince?: string;
  postcode?: string;
  /** Names the search also finds the firm by; not shown in its hits. */
  tradingNames?: string[];
  /** Permission name -> details, in the register's order; 20 a page. None: "Permission not found". */
  permissions?: Record<string, PermissionDetail[]>;
}

/** What a request gets instead of the register's answer. */
export type StandinFault = 'hang' | 'garbage' | 'huge' | 500 | 429 | null;

export interface FcaStandin {
  /** http://127.0.0.1:PORT/services/V0.1 */
  baseUrl: string;
  email: string;
  key: string;
  firms: Map<string, StandinFirm>;
  /** Path and query of every request that reached the stand-in, in order. */
  requests: string[];
  inFlight: number;
  peakInFlight: number;
  /** Wait before answering each request. */
  delayMs: number;
  /** Chooses a fault by path and query; default none. */
  fault: (pathAndQuery: string) => StandinFault;
  close(): Promise<void>;
}

const PER_PAGE = 20;
const NON_INVESTMENT_INSURANCE: PermissionDetail[] = [
  { 'Customer Type': ['Retail (Non-Investment Insurance)', 'Commercial'] },
  { 'Investment Type': ['Non-investment insurance contracts'] },
];
const GENERAL_CLASSES = [
  'Accident',
  'Sickness',
  'Land Vehicles',
  'Goods in transit',
  'Fire and natural forces',
  'Damage to property',
  'Motor vehicle liability',
  'General liability',
  'Legal expenses',
  'Assistance',
];

/** Real public register data (Hiscox, as recorded) and made-up firms (FRN 9000xx, "Example ..."). */
export const STANDIN_FIRMS: StandinFirm[] = [
  {
    frn: '113849',
    name: 'Hiscox Insurance Company Limited',
    status: 'Authorised',
    statusSince: '01/12/2001',
    postcode: 'EC2N 4BQ',
    permissions: {
      'Advising on investments (except on Pension Transfers and Pension Opt Outs)': NON_INVESTMENT_INSURANCE,
      'Agreeing to carry on a regulated activity': [
        { Limitation: ['The firm can only agree to carry on the regulated activities specified in this Notice.'] },
      ],
      'Arranging (bringing about) deals in investments': NON_INVESTMENT_INSURANCE,
      'Assisting in the administration and performance of a contract of insurance': NON_INVESTMENT_INSURANCE,
      'Carrying out contracts of insurance': [{ 'Customer Type': ['All'] }, { 'Investment Type': GENERAL_CLASSES }],
      'Effecting contracts of insurance': [{ 'Customer Type': ['All'] }, { 'Investment Type': GENERAL_CLASSES }],
      'Making arrangements with a view to transactions in investments': NON_INVESTMENT_INSURANCE,
    },
  },
  {
    frn: '900001',
    name: 'Example Motor Brokers Limited',
    status: 'Authorised',
    statusSince: '14/01/2005',
    postcode: 'ZZ1 1AA',
    tradingNames: ['Example Car Cover'],
    permissions: {
      'Agreeing to carry on a regulated activity': [
        { Limitation: ['The firm can only agree to carry on the regulated activities specified in this Notice.'] },
      ],
      'Arranging (bringing about) deals in investments': NON_INVESTMENT_INSURANCE,
      'Assisting in the administration and performance of a contract of insurance': NON_INVESTMENT_INSURANCE,
      'Credit Broking': [{ 'Customer Type': ['All'] }],
      'Dealing in investments as agent': NON_INVESTMENT_INSURANCE,
      'Making arrangements with a view to transactions in investments': NON_INVESTMENT_INSURANCE,
    },
  },
  {
    frn: '900002',
    name: 'Example Mutual Insurance Limited',
    status: 'No longer authorised',
    statusSince: '30/06/2012',
    postcode: 'ZZ2 2BB',
  },
  {
    frn: '900003',
    name: 'EXAMPLE MUTUAL INSURANCE LTD.',
    status: 'Authorised',
    statusSince: '01/07/2012',
    postcode: 'ZZ2 2BB',
    permissions: {
      'Carrying out contracts of insurance': [
        { 'Customer Type': ['All'] },
        { 'Investment Type': ['Land Vehicles', 'Motor vehicle liability'] },
      ],
      'Effecting contracts of insurance': [
        { 'Customer Type': ['All'] },
        { 'Investment Type': ['Land Vehicles', 'Motor vehicle liability'] },
      ],
    },
  },
  {
    // A long list, as a bank's (Barclays, FRN 122702, has 42): the insurer's permission is on page 2.
    frn: '900004',
    name: 'Example Bancassurance plc',
    status: 'Authorised',
    statusSince: '01/12/2001',
    postcode: 'ZZ4 4DD',
    permissions: {
      ...Object.fromEntries(
        [
          'Accepting Deposits',
          'Administering a regulated mortgage contract',
          'Advising on regulated mortgage contracts',
          'Arranging (bringing about) regulated mortgage contracts',
          'Arranging safeguarding and administration of assets',
          'Credit Broking',
          'Dealing in investments as principal',
          'Debt Adjusting',
          'Debt Administration',
          'Debt-collecting',
          'Debt-counselling',
          'Entering into a regulated mortgage contract as lender',
          'Issuing Electronic Money',
          'Making arrangements with a view to regulated mortgage contracts',
          'Managing investments',
          'Providing Credit Information Services',
          'Safeguarding and administration of assets (without arranging)',
          'Sending dematerialised instructions',
          'Causing dematerialised instructions to be sent',
          'Agreeing to carry on a regulated activity',
        ].map((n) => [n, [{ 'Customer Type': ['All'] }]]),
      ),
      'Effecting contracts of insurance': [{ 'Customer Type': ['All'] }, { 'Investment Type': ['Life and annuity'] }],
      'Carrying out contracts of insurance': [{ 'Customer Type': ['All'] }, { 'Investment Type': ['Life and annuity'] }],
    },
  },
  {
    frn: '900005',
    name: 'Example Payments Limited',
    status: 'Registered',
    statusSince: '02/02/2019',
    postcode: 'ZZ5 5EE',
  },
];

const envelope = (status: string, message: string, data: unknown, resultInfo: unknown = null) => ({
  Data: data,
  Message: message,
  ResultInfo: resultInfo,
  Status: status,
});

export async function startFcaStandin(opts: { firms?: StandinFirm[]; email?: string; key?: string } = {}): Promise<FcaStandin> {
  const standin: FcaStandin = {
    baseUrl: '',
    email: opts.email ?? 'register-api@example.test',
    key: opts.key ?? 'standin-key-0f1e2d3c4b5a6978',
    firms: new Map((opts.firms ?? STANDIN_FIRMS).map((f) => [f.frn, f])),
    requests: [],
    inFlight: 0,
    peakInFlight: 0,
    delayMs: 0,
    fault: () => null,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };

  function answer(url: URL): { status: number; body: unknown } {
    const base = standin.baseUrl;
    const path = url.pathname.replace(/^\/services\/V0\.1/, '');
    if (path === '/Search') {
      const q = url.searchParams.get('q') ?? '';
      if (url.searchParams.get('type') !== 'firm')
        return { status: 200, body: envelope('FSR-API-04-01-11', 'No search result found', null) };
      if (!q || /[*']/.test(q)) return { status: 200, body: envelope('FSR-API-04-01-21', 'Bad request. Invalid Input', null) };
      const needle = q.toLowerCase();
      const hits = [...standin.firms.values()].filter((f) =>
        [f.name, ...(f.tradingNames ?? [])].some((n) => n.toLowerCase().includes(needle)),
      );
      if (hits.length === 0) return { status: 200, body: envelope('FSR-API-04-01-11', 'No search result found', null) };
      const page = hits.slice(0, PER_PAGE).map((f) => ({
        Name: f.postcode ? `${f.name} (Postcode: ${f.postcode})` : f.name,
        'Reference Number': f.frn,
        Status: f.status,
        'Type of business or Individual': 'Firm',
        URL: `${base}/Firm/${f.frn}`,
      }));
      return {
        status: 200,
        body: envelope('FSR-API-04-01-00', 'Ok. Search successful', page, {
          page: '1',
          per_page: String(PER_PAGE),
          total_count: String(hits.length),
        }),
      };
    }
    const firmPath = /^\/Firm\/([^/]+)(\/Permissions)?$/.exec(path);
    if (!firmPath) return { status: 404, body: { message: 'no such resource' } };
    const firm = standin.firms.get(decodeURIComponent(firmPath[1]!));
    if (!firmPath[2]) {
      if (!firm) return { status: 200, body: envelope('FSR-API-02-01-11', 'Firm not found', null) };
      const link = (s: string) => `${base}/Firm/${firm.frn}/${s}`;
      return {
        status: 200,
        body: envelope(
          'FSR-API-02-01-00',
          'Ok. Firm Found',
          [
            {
              Address: link('Address'),
              'Appointed Representative': link('AR'),
              'Business Type': 'Regulated',
              'Client Money Permission': 'Control but not hold client money',
              'Companies House Number': '',
              'Exceptional Info Details': [],
              FRN: firm.frn,
              Individuals: link('Individuals'),
              'MLRs Status': '',
              Name: link('Names'),
              'Organisation Name': firm.name,
              Permission: link('Permissions'),
              Status: firm.status,
              'Status Effective Date': firm.statusSince ?? '',
              'Sub-Status': '',
              'System Timestamp': '27/02/2026 11:25',
            },
          ],
          { page: '1', per_page: '1', total_count: '1' },
        ),
      };
    }
    const all = Object.entries(firm?.permissions ?? {});
    if (all.length === 0) return { status: 200, body: envelope('FSR-API-02-03-11', 'Firm permission not found', null) };
    const page = Number(url.searchParams.get('pgnp') ?? '1');
    const pages = Math.ceil(all.length / PER_PAGE);
    if (!Number.isInteger(page) || page < 1 || page > pages)
      return { status: 200, body: envelope('FSR-API-02-03-31', 'Invalid parameter', null) };
    const info: Record<string, string> = { page: String(page), per_page: String(PER_PAGE), total_count: String(all.length) };
    if (page < pages) info['Next'] = `${base}/Firm/${firm!.frn}/Permissions?pgnp=${page + 1}`;
    if (page > 1) info['Previous'] = `${base}/Firm/${firm!.frn}/Permissions?pgnp=${page - 1}`;
    const data = Object.fromEntries(all.slice((page - 1) * PER_PAGE, page * PER_PAGE));
    return { status: 200, body: envelope('FSR-API-02-03-00', 'Ok. Firm permission found', data, info) };
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const pathAndQuery = `${url.pathname}${url.search}`;
    standin.requests.push(pathAndQuery);
    standin.inFlight++;
    standin.peakInFlight = Math.max(standin.peakInFlight, standin.inFlight);
    let done = false;
    const finish = () => {
      if (!done) standin.inFlight--;
      done = true;
    };
    res.on('close', finish);
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers }).end(body);
    };
    setTimeout(() => {
      if (req.headers['x-auth-email'] !== standin.email || req.headers['x-auth-key'] !== standin.key) {
        return send(401, JSON.stringify(envelope('FSR-API-01-01-11', 'Unauthorised', null)));
      }
      const fault = standin.fault(pathAndQuery);
      if (fault === 'hang') return;
      if (fault === 500) return send(500, '{"message":"Internal Server Error"}');
      if (fault === 429) return send(429, '{"message":"Too Many Requests"}', { 'retry-after': '60' });
      if (fault === 'garbage') return send(200, '{"Status": "FSR-API-02-01-00", "Data": [{"FRN": ');
      if (fault === 'huge') {
        // Chunked, no Content-Length: the client can only find out by counting.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const more = (): void => {
          while (sent < 4 * 1024 * 1024 && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        return more();
      }
      const { status, body } = answer(url);
      send(status, JSON.stringify(body));
    }, standin.delayMs).unref();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  standin.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/V0.1`;
  return standin;
}
