/** French: documents of French insurers (attestations, mémo véhicule assuré, cartes de tiers payant). */
import type { LanguagePack } from '../types.js';

export const fr = {
  code: 'fr',
  name: 'Français',
  tesseract: 'fra',
  months: ['janvier', 'fevrier', 'mars', 'avril', 'mai', 'juin', 'juillet', 'aout', 'septembre', 'octobre', 'novembre', 'decembre'],
  monthVariants: {},
  monthAbbreviations: { janv: 1, fev: 2, fevr: 2, avr: 4, juil: 7, sept: 9, oct: 10, nov: 11, dec: 12 },
  indicatorWords: ['le', 'la', 'les', 'du', 'au', 'de', 'votre', 'vos', 'assurance', 'contrat', 'police', 'date', 'immatriculation', 'assureur', 'cotisation', 'numero'],
  typeWords: {
    motor: { words: ['auto\\w*', 'vehicule', 'immatricul\\w*', 'conducteur'] },
    travel: { words: ['voyage\\w*', 'sejour', 'annulation', 'destination'] },
    health: { words: ['sante', 'mutuelle', 'complementaire', 'hospitalisation', 'soins'] },
  },
  labels: {
    policy: [/\b(?:numero|n\s?[°º*o]\.?)\s*(?:de\s+|d')?\s*(?:police|contrat|adherent|d'adherent|souscription)/, /\bcontrat\s*n\s?[°º*®o]/],
    insurer: [/\b(?:votre\s+)?(?:assureur|compagnie d'assurance|compagnie|societe d'assurance|organisme assureur|organisme complementaire|organisme|entreprise d'assurance|porteur du risque)\b/, /\bsouscrit aupres de\b/, /\baupres de\b/],
    start: [/\b(?:date d'effet|date de debut|prise d'effet|debut|a compter du|debut de garantie|effet)\b/],
    end: [/\b(?:date d'echeance|echeance|date de fin|date d'expiration|expiration|fin de garantie|fin de validite|fin de contrat|fin d'effet|jusqu'au)\b/],
    period: [/\b(?:periode de (?:validite|garantie)|periode|valables?|validite)\b/],
    registration: [/\b(?:n[°º*o]?\s*d'immatriculation|immatriculation|immatricule)\b/],
  },
  copulas: ['est'],
  periodConnectors: ['au', 'a'],
  notPolicyContext: ['client', 'identifiant', 'reference client', 'tel', 'fax', 'rcs', 'siren', 'cotisation', 'prime', 'naissance', 'ne\\(e\\)', 'iban', 'bic'],
  notPeriodContext: ['naissance', 'ne\\(?e?\\)? le', 'nee? le', 'fait a', 'emis', 'emission', 'edite', 'delivre', 'mise en circulation', 'circulation', 'imprime'],
  secondaryNumberWords: ['reference', 'ref', 'client', 'identifiant', 'siren', 'rcs', 'securite sociale', 'amc', 'dossier'],
  insurerWords: ['assurance\\w*', 'mutuelle\\w*', 'assistance', 'iard', 'prevoyance', 'mutuel\\w*'],
  notInsurerContext: ['courtier', 'intermediaire', 'distribue par', 'gere par', 'gestionnaire', 'acpr', 'autorite de controle', 'orias', 'rcs', 'capital de', 'siege social', 'tiers payant', 'regie par'],
  documentTitleWords: ['attestation', 'carte', 'certificat', 'memo', 'avis', 'conditions', 'garanties', 'contrat'],
  personTitles: ['m', 'mme', 'mlle', 'monsieur', 'madame'],
  legalForms: ['sa', 'sas', 'sasu', 'sarl', 'sam', 'mutuelle', 'compagnie', 'societe anonyme'],
  stopWords: ['la', 'le', 'les', 'l', 'de', 'du', 'des', 'd', 'et'],
  coverage: {
    labels: {
      motor_cover: ['formule(?: de garantie)?', 'niveau de garantie', 'garanties souscrites', 'type de couverture'],
      trip_type: ['type de contrat', 'formule', 'duree du contrat'],
      region: ['zone(?: geographique| de couverture)?', 'territorialite', 'destination'],
      health_plan: ['formule', 'niveau de garantie', 'niveau de couverture', 'option', 'offre', 'niveau'],
    },
    motorCover: {
      third_party: ['au tiers', 'tiers simple', 'tiers', 'responsabilite civile seule', 'rc seule'],
      third_party_fire_theft: ['tiers etendu', 'tiers ?\\+[\\w ,]*', 'tiers,? vol', 'intermediaire', 'tiers plus'],
      comprehensive: ['tous risques', 'tout risque'],
    },
    tripTypes: {
      single_trip: ['voyage unique', 'temporaire', 'un seul voyage', "dans le cadre d'un voyage", 'sejour unique'],
      annual_multi_trip: ['multi[- ]?voyages?', 'annuel\\w* multi\\w*', 'contrat annuel', 'tous vos voyages'],
    },
    regions: {
      domestic: ['france(?: metropolitaine)?(?: uniquement| seulement)?'],
      europe: ['europe(?:enne)?'],
      worldwide_excluding_usa: ["monde(?: entier)?,? (?:hors|sauf|excepte|a l'exception des) (?:usa|etats-unis|amerique du nord|canada)"],
      worldwide: ['monde entier', 'mondiale?', 'tous pays'],
    },
    negations: ['non souscrit\\w*', 'non garanti\\w*', 'non inclus\\w*', 'exclu\\w*', 'sans', 'non'],
    elsewhere: ['autre\\w* vehicule\\w*', 'vehicule\\w* pret\\w*'],
    // Formula levels of complémentaires santé (Essentiel, Confort, Équilibre, Sérénité, Optimum ...), folded.
    healthPlanWords: ['essentiel\\w*', 'confort', 'equilibre', 'serenite', 'optimum', 'optimal\\w*', 'premium', 'integral\\w*', 'renforce\\w*', 'initial\\w*'],
  },
  sheetHeaders: {
    policy: ['police', 'contrat'],
    number: ['numero', 'n°', 'no', 'num'],
    policyNumber: [],
    type: ['type', 'genre', 'produit', 'branche'],
    country: ['pays', 'nation'],
    provider: ['assureur', 'compagnie', 'societe', 'assurance'],
  },
  sheetNotes: {
    heading: { unverified: 'Covercheck : non vérifiée. Pourquoi :', inconclusive: 'Covercheck : non concluant. Pourquoi :' },
    checks: { format: 'Format du numéro', register: 'Registre {regulator}', registry: 'Registre des polices', sanctions: 'Liste des sanctions' },
    outcomes: { pass: 'réussi', fail: 'échoué', warn: 'avertissement', unavailable: 'indisponible', skipped: 'ignoré' },
    flagsLabel: 'Alertes',
    flags: {
      expired: 'expirée', not_yet_active: 'pas encore en vigueur', cancelled: 'résiliée', suspended: 'suspendue', sanctioned: 'assureur sanctionné',
      insurer_not_authorised: 'assureur non agréé', provider_mismatch: 'assureur différent', provider_not_found: 'assureur introuvable',
      type_mismatch: 'type d\'assurance différent', registry_unavailable: 'registre indisponible', no_registry_coverage: 'aucun registre ne couvre ce cas',
      demo_data: 'données de démonstration', document_mismatch: 'document différent', sandbox: 'clé sandbox (données de démonstration)',
    },
    confidence: 'Confiance',
  },
} as const satisfies LanguagePack;
