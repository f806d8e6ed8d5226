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
    insurer: [/\b(?:votre\s+)?(?:assureur|compagnie d'assurance|compagnie)\b/],
    start: [/\b(?:date d'effet|date de debut|prise d'effet|debut)\b/],
    end: [/\b(?:date d'echeance|echeance|date de fin|date d'expiration|expiration)\b/],
    period: [/\b(?:periode de (?:validite|garantie)|periode|valables?)\b/],
    registration: [/\b(?:n[°º*o]?\s*d'immatriculation|immatriculation|immatricule)\b/],
  },
  copulas: ['est'],
  periodConnectors: ['au', 'a'],
  notPolicyContext: ['client', 'identifiant', 'reference client', 'tel', 'fax', 'rcs', 'siren', 'cotisation', 'prime', 'naissance', 'ne\\(e\\)', 'iban', 'bic'],
  legalForms: ['sa', 'sas', 'sasu', 'sarl', 'sam', 'mutuelle', 'compagnie', 'societe anonyme'],
  stopWords: ['la', 'le', 'les', 'l', 'de', 'du', 'des', 'd', 'et'],
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
