// Live data (docs/cache.md "Classification"): a request about now, today, prices, weather, markets,
// news, scores, order status or availability is not answered from the response cache.
// Strong cues decide alone; weak ones ("price", "now") need a second cue.

export const LIVE_THRESHOLD = 2;

export const LIVE_STRONG = {
  en: "today, today's, tonight, tomorrow, tomorrow's, yesterday, right now, currently, at the moment, as of now, as of today, this morning, this afternoon, this evening, this week, this weekend, this month, this year, next week, next month, last week, last night, latest, up to date, up-to-date, breaking news, news, headlines, weather, forecast, temperature outside, stock price, share price, stock market, exchange rate, exchange rates, conversion rate, bitcoin price, price of bitcoin, crypto prices, gas prices, live score, final score, flight status, order status, delivery status, status of, track my, hasn't arrived, has not arrived, never received, never got, haven't received, have not received, didn't receive, did not receive, not received, hasn't been delivered, not arrived yet, still hasn't, when it will ship, when will it ship, has it shipped, shipped yet, where is my order, where's my order, where is my package, where is my parcel, in stock, out of stock, still available, opening hours, open now, is it open, what time is it, current time, what's the date, what day is it, trending, election results",
  fr: "pas arrivée, pas arrivé, pas encore reçu, aujourd'hui, ce soir, demain, maintenant, actuellement, en ce moment, actualités, météo, prévisions météo, taux de change, prix actuel, en stock, suivi de commande, où est ma commande, quelle heure",
  de: "heute, heute abend, morgen, gestern, jetzt, aktuell, aktuelle, aktuellen, derzeit, momentan, neueste, neuesten, nachrichten, schlagzeilen, wetter, wettervorhersage, aktienkurs, börse, wechselkurs, spielstand, auf lager, lieferstatus, sendungsverfolgung, wo ist meine bestellung, wie spät",
  es: "hoy, esta noche, mañana, ayer, ahora, ahora mismo, actualmente, noticias, titulares, pronóstico, el tiempo, cotización, tipo de cambio, precio actual, marcador, en stock, estado de mi pedido, dónde está mi pedido, qué hora es",
  it: "oggi, stasera, domani, ieri, adesso, attualmente, notizie, meteo, previsioni, quotazione, tasso di cambio, prezzo attuale, punteggio, stato dell'ordine, dov'è il mio ordine, che ore sono",
  pt: "hoje, esta noite, amanhã, ontem, agora, atualmente, notícias, manchetes, previsão do tempo, cotação, câmbio, taxa de câmbio, preço atual, placar, em estoque, status do pedido, onde está meu pedido, que horas são",
  nl: "vandaag, vanavond, gisteren, momenteel, actueel, actuele, nieuws, weerbericht, het weer, weersverwachting, wisselkoers, op voorraad, bestelstatus, waar is mijn bestelling, hoe laat",
  other: "сегодня, сейчас, завтра, вчера, текущий, текущая, текущие, новости, погода, погоду, биржа, в наличии, σήμερα, τώρα, καιρός, ειδήσεις, اليوم, الآن, الطقس, أخبار, سعر الصرف, היום, עכשיו, מזג האוויר, חדשות, आज, अभी, मौसम, समाचार, खबर",
};

export const LIVE_WEAK = {
  en: "now, current, recent, recently, newest, price, prices, pricing, price of, cost of, rate, stock, stocks, score, scores, who won, breaking, traffic, tracking, polls, status, available, availability, delivery, shipping, shipment, arrive, arrived, release date, schedule, tickets",
  fr: "prix, tarif, actuel, actuelle, récent, récente, dernières, dernier, score, résultats, bourse, cours de, disponible, disponibilité, livraison, statut",
  de: "preis, preise, kostet, gerade, ergebnis, ergebnisse, kurs, verfügbar, verfügbarkeit, lieferung, status",
  es: "precio, precios, cuesta, reciente, últimas, último, resultados, clima, bolsa, disponible, disponibilidad, envío, entrega",
  it: "prezzo, prezzi, costa, recente, ultime, ultimo, risultati, borsa, disponibile, disponibilità, consegna, spedizione",
  pt: "preço, preços, custa, recente, últimas, último, resultados, clima, bolsa, disponível, disponibilidade, entrega, envio",
  nl: "nu, prijs, prijzen, kost, recent, huidige, laatste, koers, beurs, uitslag, beschikbaar, beschikbaarheid, levering, verzending",
  other: "цена, цены, стоимость, сколько стоит, курс, прогноз, последние, доставка, статус, τιμή, سعر, מחיר, कीमत",
};

/** "next Friday", "lundi prochain", "la próxima semana": a weekday or a week/month with a
 * relative modifier before or after it. */
const RELATIVE = [
  { before: "next, this, last, coming", after: "", days: "monday, tuesday, wednesday, thursday, friday, saturday, sunday, month, year" },
  { before: "", after: "prochain, prochaine, dernier, dernière", days: "lundi, mardi, mercredi, jeudi, vendredi, samedi, dimanche, semaine, mois" },
  { before: "nächsten, nächste, kommenden, kommende, letzten, letzte, diesen, diese", after: "", days: "montag, dienstag, mittwoch, donnerstag, freitag, samstag, sonntag, woche, monat" },
  { before: "próximo, próxima, este, esta", after: "que viene, pasado, pasada", days: "lunes, martes, miércoles, jueves, viernes, sábado, domingo, semana, mes" },
  { before: "prossimo, prossima, questo, questa", after: "prossimo, prossima, scorso, scorsa", days: "lunedì, martedì, mercoledì, giovedì, venerdì, sabato, domenica, settimana, mese" },
  { before: "próxima, próximo, esta, este", after: "que vem, passada, passado", days: "segunda, terça, quarta, quinta, sexta, sábado, domingo, semana, mês" },
  { before: "volgende, aanstaande, komende, vorige, deze", after: "", days: "maandag, dinsdag, woensdag, donderdag, vrijdag, zaterdag, zondag, week, maand" },
];
const words = (list: string): string[] => list.split(",").map((w) => w.trim()).filter((w) => w.length > 0);
export const RELATIVE_DATES = RELATIVE.flatMap(({ before, after, days }) =>
  words(days).flatMap((d) => [...words(before).map((b) => `${b} ${d}`), ...words(after).map((a) => `${d} ${a}`)]),
).join(", ");

/** Scripts without spaces: substrings. */
export const LIVE_STRONG_SUBSTRINGS = "今天, 现在, 目前, 最新, 天气, 股价, 股市, 汇率, 新闻, 实时, 明天, 昨天, 比分, 有货, 今日, 現在, 天気, 株価, 為替, ニュース, 明日, 在庫, 오늘, 지금, 현재, 최신, 날씨, 주가, 환율, 뉴스, 내일, 재고, วันนี้, ตอนนี้, อากาศ, ข่าว";
export const LIVE_WEAK_SUBSTRINGS = "价格, 多少钱, 価格, 値段, いくら, 가격, 얼마, ราคา";

/** Tasks that work on text the caller supplied: a "tomorrow" in the text to translate is not a
 * question about tomorrow, so they need twice the evidence ("summarize today's news"). */
const MATERIAL_TASKS: ReadonlySet<string> = new Set(["translation", "summarization", "extraction", "classification"]);

/** Live when the summed cue weight reaches the threshold, or the conversation carries tool output. */
export function decideLiveData(score: number, hasToolMessages: boolean, task: string): boolean {
  if (hasToolMessages) return true;
  return score >= (MATERIAL_TASKS.has(task) ? 2 * LIVE_THRESHOLD : LIVE_THRESHOLD);
}
