// Word lists of the literal guard beyond English (docs/semantic-cache.md "Literal guard"): question
// words that open a sentence capitalised, units and scales a number is bound to, Russian weekdays,
// and the words that tell German, whose nouns are all capitalised, from other languages.

const list = (words: string): string[] => words.split(/\s+/).filter((w) => w !== "");

/** Capitalised sentence openers that are never names: question words, imperatives, articles. */
export const INTL_OPENERS: ReadonlySet<string> = new Set(list(`
  que qu quel quelle quels quelles qui quoi comment pourquoi combien où est est-ce peux peux-tu pouvez sais sais-tu
  le la les un une des du mon ma mes ce cette il elle on je y a pour en dans explique donne calcule dis existe
  was wie wo wer warum wann welche welcher welches wieviel weißt kannst können ist sind hat haben gibt der die das
  ein eine mein meine ich es erkläre gib berechne woran
  qué cuál cual cuáles quién cómo como por porque dónde cuándo cuánto cuántos cuántas sabes puedes el los las mi
  calcula explica dime se hay
  o os as qual quais quem onde quando quanto quantos quantas você pode é um uma meu minha calcule explique diga
  что как почему где когда кто какой какая какое какие каков какова сколько подскажите подскажи объясни посчитай
  скажите можно ли в во на с без мой моя мое мои это
  τι ποιος ποια ποιο ποιοι ποιες ποιον ποιας ποιου πόσο πόση πόσοι πόσες πόσα πόσους πόσης πώς πως πού πότε γιατί
  είναι υπάρχει υπάρχουν μπορείς μπορείτε πες πείτε εξήγησε εξηγήστε δώσε ξέρεις ξέρετε θέλω σε στο στη στην
  η ο το οι τα ένας μια μία ένα για με από
`));

/** Unit and scale words bound to the number before them, folded to one spelling: "5 km" and
 * "5 miles" differ, "5 km" and "5 kilometres" agree, "2 billion" and "2 million" differ. */
export const UNITS: ReadonlyMap<string, string> = new Map(
  list(`km:km kilometer:km kilometers:km kilometre:km kilometres:km kilomètres:km kilometros:km kilómetros:km quilômetros:km км:km
    mi:mi mile:mi miles:mi meilen:mi meile:mi milles:mi millas:mi milhas:mi миль:mi мили:mi
    m:m meter:m meters:m metre:m metres:m mètres:m metros:m метров:m cm:cm mm:mm ft:ft feet:ft foot:ft inches:in
    kg:kg kilo:kg kilos:kg kilogram:kg kilograms:kg кг:kg g:g grams:g gramm:g gramos:g гр:g lb:lb lbs:lb
    gb:gb mb:mb tb:tb kb:kb
    h:h hour:h hours:h heures:h stunden:h horas:h часов:h часа:h min:min minute:min minutes:min minuten:min minutos:min минут:min
    day:d days:d jours:d tage:d días:d dias:d дней:d дня:d week:w weeks:w month:mo months:mo year:y years:y
    %:% percent:% pourcent:% prozent:% процентов:%
    thousand:e3 tausend:e3 mille:e3 mil:e3 тысяч:e3 тысячи:e3 тыс:e3 k:e3
    million:e6 millions:e6 mio:e6 millionen:e6 millón:e6 millones:e6 milhão:e6 milhões:e6 миллион:e6 миллиона:e6 миллионов:e6 млн:e6
    billion:e9 billions:e9 milliard:e9 milliards:e9 mrd:e9 milliarden:e9 bn:e9 миллиард:e9 миллиарда:e9 миллиардов:e9 млрд:e9
    dollars:usd dollar:usd usd:usd euros:eur euro:eur eur:eur pounds:gbp yen:jpy рублей:rub
    $:usd €:eur £:gbp ¥:jpy ₹:inr ₪:ils
    ألف:e3 الف:e3 آلاف:e3 الاف:e3 مليون:e6 ملايين:e6 مليار:e9 درهم:aed دراهم:aed دولار:usd دولارات:usd يورو:eur ريال:sar جنيه:egp
    אלף:e3 אלפים:e3 מיליון:e6 מיליארד:e9 שקל:ils שקלים:ils דולר:usd דולרים:usd יורו:eur
    χιλιάδες:e3 χιλιάδων:e3 εκατομμύριο:e6 εκατομμύρια:e6 δισεκατομμύρια:e9 ευρώ:eur δολάρια:usd
    만:e4 억:e8 천:e3 원:krw 달러:usd 유로:eur 엔:jpy 시간:h 분:min 초:s 일:d 주:w 주일:w 개월:mo 달:mo 년:y 살:age 세:age
    개:pcs 명:ppl 번:times 층:floor 킬로미터:km 킬로:km 미터:m 센티미터:cm 킬로그램:kg 그램:g 퍼센트:% 도:deg 잔:cups 병:bottles
    마리:animals 대:units 박:nights 인분:servings
    ساعة:h ساعات:h دقيقة:min دقائق:min يوم:d أيام:d أسبوع:w أسابيع:w شهر:mo أشهر:mo سنة:y سنوات:y كيلومتر:km
    متر:m كيلوغرام:kg كغ:kg غرام:g
    שעה:h שעות:h דקה:min דקות:min יום:d ימים:d שבוע:w שבועות:w חודש:mo חודשים:mo שנה:y שנים:y קילומטר:km מטר:m
    קילו:kg קילוגרם:kg גרם:g אחוז:% אחוזים:%
    ώρα:h ώρες:h λεπτά:min λεπτό:min μέρα:d μέρες:d ημέρες:d εβδομάδες:w μήνες:mo χρόνια:y χιλιόμετρα:km μέτρα:m κιλά:kg γραμμάρια:g`).map((pair): [string, string] => {
    const at = pair.lastIndexOf(":");
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

/** Russian weekdays whatever the case ending ("в среду", "по средам"); not "среди" or "средний". */
export const RU_WEEKDAYS: readonly RegExp[] = [/^понедельник/, /^вторник/, /^сред(?:а|у|ы|е|ам|ами)$/, /^четверг/, /^пятниц/, /^суббот/, /^воскресень/];

/** Words only German uses among the guard's languages: with one of them the text is German, and its
 * capitalised words are nouns more often than names. */
export const GERMAN_WORDS: ReadonlySet<string> = new Set(list(`
  ist und nicht wie ein eine einen einem einer mit für ich sind das der zu auf warum wann welche welcher
  kann mein meine gibt ohne heißt bedeutet viele wieviel groß geht braucht zum zur
`));

/** Words only Portuguese uses among the guard's languages: there "no" is "in the" (`no Python`), not
 * Spanish "no"; Portuguese negates with "não". */
export const PORTUGUESE_WORDS: ReadonlySet<string> = new Set(list("não você há são é qual quais meu minha uma pelo pela também"));

/** Number words of French, German, Spanish, Portuguese, Russian, Korean, Arabic, Hebrew and Greek as
 * digits, as the English ones are. Left out like "one": the words for one, and those that are also
 * other words (French "neuf" new, German "elf", Spanish "dos" = Portuguese "of the", Korean 네 yes
 * and 열 open, Arabic ست lady and سبع lion, Hebrew שבע full). */
export const INTL_NUMBER_WORDS: ReadonlyMap<string, string> = new Map(
  list(`deux:2 trois:3 quatre:4 cinq:5 sept:7 huit:8 dix:10 douze:12 vingt:20 cent:100
    zwei:2 drei:3 vier:4 fünf:5 sechs:6 sieben:7 acht:8 neun:9 zehn:10 zwölf:12 zwanzig:20 hundert:100
    tres:3 cuatro:4 cinco:5 seis:6 siete:7 ocho:8 nueve:9 diez:10 doce:12 veinte:20 cien:100
    dois:2 duas:2 três:3 quatro:4 sete:7 oito:8 nove:9 dez:10 doze:12 vinte:20 cem:100
    два:2 две:2 двух:2 три:3 трёх:3 трех:3 четыре:4 четырёх:4 четырех:4 пять:5 пяти:5 шесть:6 шести:6
    семь:7 семи:7 восемь:8 восьми:8 девять:9 девяти:9 десять:10 десяти:10 двенадцать:12 двадцать:20 сто:100
    두:2 세:3 다섯:5 여섯:6 일곱:7 여덟:8 아홉:9 스무:20 스물:20
    اثنان:2 اثنين:2 اثنتين:2 ثلاثة:3 ثلاث:3 أربعة:4 أربع:4 خمسة:5 خمس:5 ستة:6 سبعة:7 ثمانية:8 ثماني:8 تسعة:9 تسع:9 عشرة:10
    שניים:2 שתיים:2 שני:2 שתי:2 שלושה:3 שלוש:3 ארבעה:4 ארבע:4 חמישה:5 חמש:5 שישה:6 שש:6 שבעה:7 שמונה:8 תשעה:9 תשע:9 עשרה:10
    δύο:2 τρία:3 τρεις:3 τέσσερα:4 τέσσερις:4 πέντε:5 έξι:6 επτά:7 εφτά:7 οκτώ:8 οχτώ:8 εννέα:9 εννιά:9 δέκα:10 είκοσι:20`).map(
    (pair): [string, string] => [pair.slice(0, pair.indexOf(":")), pair.slice(pair.indexOf(":") + 1)],
  ),
);
