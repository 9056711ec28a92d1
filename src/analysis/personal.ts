// Personal requests (docs/cache.md "Classification"): personal phrases and possessives, personal
// data in the text, the owner after the noun, account-like nouns with a number. Without a `user`
// to scope the cache, such answers are never shared. The rules live in scan-words.ts.

/** A possessive this many words before a personal noun makes the request personal ("my online banking password"). */
export const POSSESSIVE_REACH = 3;
/** A first-person pronoun this many words before one ("help me reset the password"). */
export const FIRST_PERSON_REACH = 3;
/** A first person or possessive this many words after a personal noun ("the subscription I have",
 * "the account of mine", "die Bestellungen von mir"). */
export const OWNER_AFTER_REACH = 2;
/** ... or this many when an owner preposition comes right before it ("the loan taken out by me"). */
export const OWNER_AFTER_PREP_REACH = 5;
/** Owner prepositions before the pronoun: "by me", "of mine", "belonging to me", "par moi", "von mir",
 * "por mí", "da me", "por mim", "van mij", "door mij". Not "to"/"for" alone: "explain it to me" is no owner. */
export const OWNER_PREPOSITION = /(?:^|[\s,])(?:by|of|belonging to|belongs to|par|à|von|por|da|di|de|van|door|от|у)\s+$/i;

/** Without a preposition the words between noun and pronoun must be plain (no punctuation: "'Create
 * account', 'Remember me'" are two strings) and the pronoun must not open a clause ("la première
 * commande quand je la lance", "the order if I pay"). */
export const OWNER_PLAIN_GAP = /^[\p{L}\s,]*$/u;
export const CLAUSE_OPENER = /(?:^|\s)(?:when|if|and|or|but|so|as|because|before|after|until|while|quand|si|et|ou|mais|parce|wenn|als|und|oder|weil|bevor|nachdem|cuando|y|o|pero|porque|quando|se|e|ma|perché|mas|toen|en|maar|omdat|когда|и|если|но)\s+$/i;

/** Account-like nouns whose number names one person's record: "acct 4471", "order no. 558231",
 * "Konto 449120". A subset of PERSONAL_NOUNS (the flag is what finds them). */
export const REFERENCE_NOUNS = new Set(("account, accounts, acct, accts, order, orders, invoice, booking, reservation, ticket, card, " +
  "subscription, membership, loan, mortgage, shipment, parcel, package, delivery, " +
  "compte, commande, facture, réservation, colis, carte, dossier, konto, bestellung, rechnung, buchung, reservierung, paket, karte, kreditkarte, " +
  "cuenta, pedido, factura, reserva, tarjeta, paquete, envío, conto, ordine, fattura, prenotazione, carta, pacco, spedizione, " +
  "conta, encomenda, fatura, cartão, pacote, rekening, bestelling, factuur, boeking, reservering, pakket, kaart, " +
  "счёт, счет, заказ, заказа, заказы, карта, карты, посылка, " +
  "账户, 账号, 订单, 发票, 快递单, 运单, 银行卡, 信用卡, 口座, 注文, 請求書, 予約, 계정, 계좌, 주문, 예약, 송장").split(", "));
/** The same nouns in scripts without spaces, found as substrings (only the number after them makes
 * them personal: "订单12345", "口座 4471 の残高", "계좌 4471 잔액"). */
export const REFERENCE_SUBSTRINGS = "账户, 账号, 订单, 发票, 快递单, 运单, 银行卡, 信用卡, 口座, 注文, 請求書, 予約, 계정, 계좌, 주문, 예약, 송장";
/** What may stand between such a noun and its number: "no.", "number", "#", "ending in", ":". */
export const REFERENCE_BRIDGE = /^[\s:#：]*(?:(?:no|nr|num|number|n°|nº|numéro|numero|número|nummer|номер|id|ref|ending(?: in)?|号码?|编号|番号|번호)\.?[\s:#：]*)?$/i;
/** How far (characters) a number may sit after the noun; the bridge decides the rest. */
export const REFERENCE_GAP = 16;

export const POSSESSIVES = "my, mine, our, mon, ma, mes, notre, nos, mein, meine, meinen, meinem, meiner, meines, unser, unsere, mi, mis, nuestro, nuestra, mio, mia, miei, mie, mío, mía, míos, mías, nostro, nostra, meu, minha, meus, minhas, nosso, nossa, mijn, onze, мой, моя, моё, мои, моего, моей, мою, моим, моём, наш, наша, μου, שלי";
export const FIRST_PERSON = "i, me, i'm, i've, i'd, je, j', moi, ich, mich, mir, yo, me, mí, io, eu, mim, ik, mij, я, меня, мне, мной, мною";

export const PERSONAL_NOUNS = {
  en: "account, accounts, acct, accts, order, orders, bookings, reservations, subscriptions, tickets, cards, loans, packages, parcels, shipments, password, passwords, pin, login, username, address, phone, phone number, bank, bank account, bank statement, card, credit card, debit card, balance, subscription, membership, invoice, invoices, bill, bills, payment, payments, refund, profile, booking, reservation, ticket, package, parcel, delivery, shipment, tracking number, loan, mortgage, insurance, insurance claim, salary, paycheck, payslip, tax, taxes, tax return, ssn, social security, passport, license, licence, visa, medical, diagnosis, prescription, medication, test results, lab results, doctor, appointment, blood, medical records, personal data, wallet, transaction, transactions, purchase, purchases, cart, rewards, credentials, two-factor, verification code, calendar, inbox, emails, e-mails, contacts, messages, schedule, medical history",
  fr: "compte, comptes, commande, commandes, factures, réservations, cartes, mot de passe, adresse, téléphone, carte, solde, abonnement, facture, paiement, remboursement, profil, réservation, colis, livraison, prêt, assurance, salaire, impôts, passeport, ordonnance, rendez-vous, dossier",
  de: "konto, konten, bestellung, bestellungen, rechnungen, buchungen, karten, passwort, kennwort, adresse, telefonnummer, karte, kreditkarte, kontostand, abo, abonnement, rechnung, zahlung, rückerstattung, profil, buchung, reservierung, paket, lieferung, kredit, versicherung, gehalt, steuer, steuern, reisepass, rezept, termin, daten, e-mails, e-mail, mails, nachrichten, kalender",
  es: "cuenta, cuentas, pedido, pedidos, facturas, reservas, tarjetas, contraseña, dirección, teléfono, tarjeta, saldo, suscripción, factura, pago, reembolso, perfil, reserva, paquete, envío, préstamo, seguro, salario, sueldo, impuestos, pasaporte, receta, cita, datos",
  it: "account, conto, conti, ordine, ordini, fatture, prenotazioni, carte, password, indirizzo, telefono, carta, saldo, abbonamento, fattura, pagamento, rimborso, profilo, prenotazione, pacco, spedizione, prestito, assicurazione, stipendio, tasse, passaporto, ricetta, appuntamento, dati",
  pt: "conta, contas, pedido, pedidos, encomenda, encomendas, faturas, reservas, cartões, senha, endereço, telefone, cartão, saldo, assinatura, fatura, pagamento, reembolso, perfil, reserva, pacote, entrega, empréstimo, seguro, salário, impostos, passaporte, receita, consulta, dados",
  nl: "account, rekening, rekeningen, bestelling, bestellingen, facturen, boekingen, reserveringen, wachtwoord, adres, telefoonnummer, kaart, saldo, abonnement, factuur, betaling, terugbetaling, profiel, boeking, reservering, pakket, levering, lening, verzekering, salaris, belasting, paspoort, recept, afspraak, gegevens",
  other: "аккаунт, аккаунта, заказ, заказа, заказы, пароль, пароля, адрес, телефон, карта, карту, карты, счёт, счет, баланс, подписка, подписку, платёж, возврат, профиль, бронь, посылка, кредит, зарплата, паспорт",
};

/** Phrases personal by themselves. */
export const PERSONAL_PHRASES = "my name is, i live in, i live at, i was born, my birthday is, my date of birth, my address is, my phone number is, my email is, my email address, call me at, text me at, reach me at, email me at, my social security, my ssn, my credit card number, my card number, my iban, my account number, my order number, my booking reference, my patient, je m'appelle, j'habite, mon numéro, ich heiße, ich wohne, meine nummer, me llamo, vivo en, mi número, mi chiamo, abito a, il mio numero, meu nome é, moro em, meu número, ik heet, ik woon, mijn nummer, меня зовут, я живу, мой номер";
/** Scripts without spaces: substrings. */
export const PERSONAL_SUBSTRINGS = "我的账户, 我的账号, 我的订单, 我的密码, 我的地址, 我的手机, 我的电话, 我的银行, 我的信用卡, 我的快递, 我的包裹, 我的订阅, 我叫, 私の注文, 私のアカウント, 私のパスワード, 私の住所, 注文番号, 私の名前, 내 계정, 제 계정, 내 주문, 제 주문, 내 비밀번호, 제 비밀번호, 주문 번호, 내 이름, 제 이름, 비밀번호";

// Personal identifiers, tested only when the scan saw enough digits to hold one. Each pattern
// starts with a digit or "+" so the regex engine skips ahead cheaply; a loose phone pattern
// gates the exact one.
const PHONE_GATE = /[+(\d][\d ().-]{8,}\d/;
const PHONE = /(?<![\w])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}[ .-]\d{3,4}[ .-]?\d{3,4}(?!\w)/;
const CARD = /(?<!\d)\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{1,4}(?!\d)/;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b/;
const SSN = /\b\d{3}-\d{2}-\d{4}\b/;

/** Phone, card, IBAN or SSN numbers in the text (not e-mails: the scan has those already). */
export function hasPersonalIdentifier(text: string): boolean {
  return (PHONE_GATE.test(text) && PHONE.test(text)) || CARD.test(text) || SSN.test(text) || IBAN.test(text);
}
