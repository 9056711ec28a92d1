// Templates and word lists of the guard's one-fact mutant set (docs/semantic-cache.md "Literal guard"):
// each group's frames say the same thing in different words; each pair fills the slot twice, with
// one fact changed. Hand-written for gw; a data file.

export type MutantKind = "quoted" | "negation" | "number" | "date" | "version" | "name";

export interface Group {
  lang: string;
  kind: MutantKind;
  /** What the change is, for the report: "contraction removed", "suffix", "Cyrillic"... */
  sub: string;
  /** Paraphrases of one question; "{x}" is the slot. */
  frames: string[];
  /** [original fill, variant fill]: the variant changes one fact. */
  pairs: [string, string][];
}

/** Quoting styles: how a term is wrapped. Every quoted group is generated in every style. */
export const QUOTE_STYLES: Record<string, (t: string) => string> = {
  straight: (t) => `"${t}"`,
  curly: (t) => `“${t}”`,
  doubled: (t) => `""${t}""`,
  "doubled curly": (t) => `““${t}””`,
  single: (t) => `'${t}'`,
  "single curly": (t) => `‘${t}’`,
  backticks: (t) => `\`${t}\``,
  guillemets: (t) => `« ${t} »`,
  "german low": (t) => `„${t}“`,
  "CJK corner": (t) => `「${t}」`,
  "CJK white corner": (t) => `『${t}』`,
  "full-width": (t) => `＂${t}＂`,
  "single guillemets": (t) => `‹${t}›`,
};

/** Quoted terms: frames take the quoted term; `sub` is filled with the style by the generator. */
export const QUOTED: Group[] = [
  { lang: "en", kind: "quoted", sub: "", frames: ["What does {x} mean?", "What is the meaning of the phrase {x}?"], pairs: [["break a leg", "break the ice"], ["spill the beans", "spill the tea"]] },
  { lang: "en", kind: "quoted", sub: "", frames: ["How do I fix the error {x} in my build?", "My build fails with {x}: how can I fix it?"], pairs: [["permission denied", "connection refused"], ["module not found", "file not found"]] },
  { lang: "fr", kind: "quoted", sub: "", frames: ["Que veut dire {x} ?", "Quel est le sens de l'expression {x} ?"], pairs: [["poser un lapin", "avoir un chat dans la gorge"], ["coûter les yeux de la tête", "coûter la peau des fesses"]] },
  { lang: "de", kind: "quoted", sub: "", frames: ["Was bedeutet {x}?", "Was heißt die Redewendung {x}?"], pairs: [["ins Gras beißen", "den Löffel abgeben"], ["Tomaten auf den Augen", "Schwein gehabt"]] },
  { lang: "es", kind: "quoted", sub: "", frames: ["¿Qué significa {x}?", "¿Cuál es el significado de {x}?"], pairs: [["estar en las nubes", "estar en la luna"], ["tomar el pelo", "meter la pata"]] },
  { lang: "pt", kind: "quoted", sub: "", frames: ["O que significa {x}?", "Qual é o significado da expressão {x}?"], pairs: [["pagar o pato", "chutar o balde"], ["engolir sapo", "enfiar o pé na jaca"]] },
  { lang: "ru", kind: "quoted", sub: "", frames: ["Что значит {x}?", "что означает выражение {x}?"], pairs: [["бить баклуши", "водить за нос"], ["вешать лапшу на уши", "делать из мухи слона"]] },
  { lang: "zh", kind: "quoted", sub: "", frames: ["{x}是什么意思？", "请解释{x}的意思。"], pairs: [["画蛇添足", "对牛弹琴"], ["一石二鸟", "马马虎虎"]] },
  { lang: "ja", kind: "quoted", sub: "", frames: ["{x}とはどういう意味ですか？", "{x}の意味を教えてください。"], pairs: [["猫に小判", "猿も木から落ちる"], ["花より団子", "七転び八起き"]] },
];

/** Negations: pairs are [negated, affirmative]; the generator also writes them the other way round. */
export const NEGATION: Group[] = [
  { lang: "en", kind: "negation", sub: "don't / do", frames: ["Why {x} cats like water?", "Is there a reason {x} cats like water?"], pairs: [["don't", "do"], ["don’t", "do"], ["dont", "do"], ["donʼt", "do"], ["don´t", "do"], ["don`t", "do"]] },
  { lang: "en", kind: "negation", sub: "can't / can", frames: ["Why {x} I log in to my account?", "Any idea why {x} I log in to my account?"], pairs: [["can't", "can"], ["can’t", "can"], ["cannot", "can"]] },
  { lang: "en", kind: "negation", sub: "won't / will", frames: ["Why {x} my laptop turn on?", "Do you know why {x} my laptop turn on?"], pairs: [["won't", "will"], ["won’t", "will"], ["doesn't", "does"]] },
  { lang: "en", kind: "negation", sub: "isn't / is", frames: ["Why {x} the water boiling at 90 degrees?", "Can you explain why {x} the water boiling at 90 degrees?"], pairs: [["isn't", "is"], ["isn’t", "is"], ["is not", "is"]] },
  { lang: "en", kind: "negation", sub: "aren't / are", frames: ["Why {x} my photos syncing to the cloud?", "Why exactly {x} my photos syncing to the cloud?"], pairs: [["aren't", "are"], ["weren't", "were"], ["wasn't", "was"], ["werent", "were"]] },
  { lang: "en", kind: "negation", sub: "without / with", frames: ["How do I bake bread {x} yeast?", "What is a good way to bake bread {x} yeast?"], pairs: [["without", "with"], ["w/o", "with"]] },
  { lang: "en", kind: "negation", sub: "never / ever", frames: ["Why do some people {x} get sunburned?", "What makes some people {x} get sunburned?"], pairs: [["never", "ever"], ["never", "often"]] },
  { lang: "en", kind: "negation", sub: "shouldn't / should", frames: ["Why {x} I drink coffee before bed?", "Is there a reason why {x} I drink coffee before bed?"], pairs: [["shouldn't", "should"], ["shouldn’t", "should"], ["couldn't", "could"], ["shouldnt", "should"]] },
  { lang: "fr", kind: "negation", sub: "ne...pas", frames: ["Pourquoi mon chat {x} ?", "Sais-tu pourquoi mon chat {x} ?"], pairs: [["ne mange pas", "mange"], ["ne dort plus", "dort"], ["ne boit jamais", "boit"]] },
  { lang: "fr", kind: "negation", sub: "n'...pas / sans", frames: ["Comment faire du pain {x} ?", "Quelle recette pour faire du pain {x} ?"], pairs: [["sans levure", "avec levure"], ["sans gluten", "avec gluten"]] },
  { lang: "fr", kind: "negation", sub: "n'...pas", frames: ["Pourquoi l'application {x} sur mon téléphone ?", "Pour quelle raison l'application {x} sur mon téléphone ?"], pairs: [["n'est pas disponible", "est disponible"], ["n'a pas de mises à jour", "a des mises à jour"], ["ne fonctionne pas", "fonctionne"]] },
  { lang: "de", kind: "negation", sub: "nicht", frames: ["Warum {x}?", "Weißt du, warum {x}?"], pairs: [["startet mein Laptop nicht", "startet mein Laptop"], ["funktioniert das WLAN nicht", "funktioniert das WLAN"], ["schläft mein Hund nie", "schläft mein Hund viel"]] },
  { lang: "de", kind: "negation", sub: "kein / ohne", frames: ["Wie backe ich Brot {x}?", "Wie gelingt Brot {x}?"], pairs: [["ohne Hefe", "mit Hefe"], ["ohne Mehl", "mit Mehl"]] },
  { lang: "de", kind: "negation", sub: "kein", frames: ["Ist es schlimm, wenn ich {x} Frühstück esse?", "Ist es ungesund, {x} Frühstück zu essen?"], pairs: [["kein", "ein"]] },
  { lang: "es", kind: "negation", sub: "no", frames: ["¿Por qué mi perro {x}?", "¿Sabes por qué mi perro {x}?"], pairs: [["no come", "come"], ["no duerme", "duerme"], ["nunca ladra", "ladra"]] },
  { lang: "es", kind: "negation", sub: "sin / con", frames: ["¿Cómo hago pan {x}?", "¿Qué receta hay para pan {x}?"], pairs: [["sin levadura", "con levadura"], ["sin gluten", "con gluten"]] },
  { lang: "pt", kind: "negation", sub: "não", frames: ["Por que meu celular {x}?", "Você sabe por que meu celular {x}?"], pairs: [["não liga", "liga"], ["não carrega", "carrega"], ["nunca desliga", "desliga"]] },
  { lang: "pt", kind: "negation", sub: "sem / com", frames: ["Como fazer bolo {x}?", "Qual a receita de bolo {x}?"], pairs: [["sem ovos", "com ovos"], ["sem açúcar", "com açúcar"]] },
  { lang: "ru", kind: "negation", sub: "не", frames: ["Почему мой ноутбук {x}?", "Подскажите, почему мой ноутбук {x}?"], pairs: [["не включается", "включается"], ["не заряжается", "заряжается"], ["никогда не выключается", "выключается"]] },
  { lang: "ru", kind: "negation", sub: "без / с", frames: ["Как испечь хлеб {x}?", "Рецепт хлеба {x}?"], pairs: [["без дрожжей", "с дрожжами"], ["без муки", "с мукой"]] },
  { lang: "zh", kind: "negation", sub: "不 / 没", frames: ["为什么我的电脑{x}？", "请问我的电脑为什么{x}？"], pairs: [["不能开机", "能开机"], ["没有声音", "有声音"], ["不充电", "充电"]] },
  { lang: "ja", kind: "negation", sub: "ない", frames: ["なぜパソコンが{x}のですか？", "パソコンが{x}のはどうしてですか？"], pairs: [["起動しない", "起動する"], ["充電できない", "充電できる"], ["動かない", "動く"]] },
];

export const NUMBER: Group[] = [
  { lang: "en", kind: "number", sub: "suffix", frames: ["Is a salary of {x} a year good in Berlin?", "Would {x} per year be a good salary in Berlin?"], pairs: [["$60K", "$6K"], ["60k", "65k"], ["$1.5M", "$15M"], ["$1.5M", "$1.5K"], ["5k", "50k"], ["$2 billion", "$2 million"]] },
  { lang: "en", kind: "number", sub: "percent", frames: ["What is {x} of 240?", "Calculate {x} of 240."], pairs: [["10%", "15%"], ["10 percent", "15 percent"], ["12.5%", "125%"]] },
  { lang: "en", kind: "number", sub: "unit", frames: ["How long does it take to walk {x}?", "How much time do I need to walk {x}?"], pairs: [["5 km", "10 km"], ["5 km", "5 miles"], ["3 miles", "30 miles"]] },
  { lang: "en", kind: "number", sub: "plain", frames: ["How many calories are in {x} boiled eggs?", "What is the calorie count of {x} boiled eggs?"], pairs: [["3", "4"], ["two", "three"], ["12", "21"]] },
  { lang: "en", kind: "number", sub: "sign", frames: ["What happens to water at {x} degrees?", "How does water behave at {x} degrees?"], pairs: [["-40", "40"], ["−10", "10"]] },
  { lang: "ru", kind: "number", sub: "sign", frames: ["Что происходит с водой при {x} градусах?", "Как ведёт себя вода при {x} градусах?"], pairs: [["-5", "5"]] },
  { lang: "en", kind: "number", sub: "storage", frames: ["Is {x} of RAM enough for video editing?", "Will {x} RAM be enough to edit videos?"], pairs: [["16GB", "32GB"], ["16 GB", "16 MB"], ["8 GB", "80 GB"]] },
  { lang: "fr", kind: "number", sub: "unit", frames: ["Combien de temps pour courir {x} ?", "En combien de temps peut-on courir {x} ?"], pairs: [["5 km", "10 km"], ["42 km", "21 km"]] },
  { lang: "fr", kind: "number", sub: "money", frames: ["Un loyer de {x} par mois, c'est cher à Lyon ?", "Est-ce qu'un loyer mensuel de {x} est cher à Lyon ?"], pairs: [["1 200 €", "1 500 €"], ["800 €", "8000 €"], ["1,2 k€", "12 k€"]] },
  { lang: "fr", kind: "number", sub: "percent", frames: ["Combien font {x} de 300 ?", "Calcule {x} de 300."], pairs: [["15 %", "20 %"], ["2,5 %", "3,5 %"]] },
  { lang: "de", kind: "number", sub: "money", frames: ["Ist ein Gehalt von {x} im Jahr gut?", "Sind {x} Jahresgehalt gut?"], pairs: [["60.000 €", "65.000 €"], ["60k €", "6k €"], ["1,5 Mio. €", "2,5 Mio. €"]] },
  { lang: "de", kind: "number", sub: "unit", frames: ["Wie lange braucht man für {x} zu Fuß?", "Wie lange geht man {x} zu Fuß?"], pairs: [["5 km", "15 km"], ["3 km", "3 Meilen"]] },
  { lang: "es", kind: "number", sub: "percent", frames: ["¿Cuánto es el {x} de 300?", "Calcula el {x} de 300."], pairs: [["15 %", "20 %"], ["10%", "15%"]] },
  { lang: "es", kind: "number", sub: "money", frames: ["¿Es bueno un sueldo de {x} al año?", "¿Un salario anual de {x} es bueno?"], pairs: [["30.000 €", "35.000 €"], ["30k €", "3k €"]] },
  { lang: "pt", kind: "number", sub: "money", frames: ["Quanto rende {x} na poupança?", "Qual o rendimento de {x} na poupança?"], pairs: [["R$ 10 mil", "R$ 100 mil"], ["R$ 5.000", "R$ 50.000"]] },
  { lang: "pt", kind: "number", sub: "plain", frames: ["Quantas calorias têm {x} ovos cozidos?", "Qual é a quantidade de calorias em {x} ovos cozidos?"], pairs: [["3", "4"], ["2", "6"]] },
  { lang: "ru", kind: "number", sub: "unit", frames: ["Сколько калорий в {x} яблок?", "Какова калорийность {x} яблок?"], pairs: [["5 кг", "3 кг"], ["2 кг", "20 кг"]] },
  { lang: "ru", kind: "number", sub: "percent", frames: ["Сколько будет {x} от 500?", "Посчитай {x} от 500."], pairs: [["10%", "15%"], ["20 %", "25 %"]] },
  { lang: "fr", kind: "number", sub: "word", frames: ["Comment cuire du riz pour {x} personnes ?", "Quelle quantité de riz pour {x} personnes ?"], pairs: [["deux", "trois"], ["quatre", "5"], ["huit", "dix"]] },
  { lang: "de", kind: "number", sub: "word", frames: ["Wie koche ich Reis für {x} Personen?", "Wie viel Reis brauche ich für {x} Personen?"], pairs: [["zwei", "drei"], ["vier", "5"], ["sechs", "acht"]] },
  { lang: "es", kind: "number", sub: "word", frames: ["¿Cómo cocino arroz para {x} personas?", "¿Cuánto arroz necesito para {x} personas?"], pairs: [["dos", "tres"], ["cuatro", "5"], ["seis", "ocho"]] },
  { lang: "pt", kind: "number", sub: "word", frames: ["Como cozinhar arroz para {x} pessoas?", "Quanto arroz preciso para {x} pessoas?"], pairs: [["duas", "três"], ["quatro", "5"], ["seis", "oito"]] },
  { lang: "ru", kind: "number", sub: "word", frames: ["Как сварить рис на {x} человек?", "Сколько риса нужно на {x} человек?"], pairs: [["двух", "трёх"], ["четырёх", "5"], ["шесть", "восемь"]] },
  { lang: "zh", kind: "number", sub: "plain", frames: ["买{x}苹果要多少钱？", "{x}苹果的价格是多少？"], pairs: [["3个", "4个"], ["三个", "四个"], ["两个", "五个"]] },
  { lang: "zh", kind: "number", sub: "money", frames: ["{x}等于多少人民币？", "{x}能换多少人民币？"], pairs: [["100美元", "200美元"], ["1万日元", "10万日元"]] },
  { lang: "ja", kind: "number", sub: "plain", frames: ["りんご{x}は何キロカロリーですか？", "りんご{x}のカロリーを教えてください。"], pairs: [["3個", "4個"], ["二個", "三個"]] },
  { lang: "ja", kind: "number", sub: "money", frames: ["{x}はドルでいくらですか？", "{x}をドルに換算するといくらですか？"], pairs: [["1万円", "10万円"], ["500円", "5000円"]] },
];

export const DATE: Group[] = [
  { lang: "en", kind: "date", sub: "date", frames: ["What happened on {x}?", "Which events took place on {x}?"], pairs: [["March 5, 2020", "March 6, 2020"], ["2021-07-14", "2021-07-15"], ["July 4, 1776", "July 4, 1876"]] },
  { lang: "en", kind: "date", sub: "weekday", frames: ["Is the museum open on {x}?", "Can I visit the museum on {x}?"], pairs: [["Monday", "Tuesday"], ["Sunday", "Saturday"]] },
  { lang: "en", kind: "date", sub: "year", frames: ["Who won the World Cup in {x}?", "Which team won the {x} World Cup?"], pairs: [["2014", "2018"], ["1998", "2002"]] },
  { lang: "fr", kind: "date", sub: "date", frames: ["Que s'est-il passé le {x} ?", "Quels événements ont eu lieu le {x} ?"], pairs: [["5 mai 1995", "6 mai 1995"], ["14 juillet 1789", "14 juillet 1790"]] },
  { lang: "fr", kind: "date", sub: "weekday", frames: ["Le musée est-il ouvert le {x} ?", "Peut-on visiter le musée le {x} ?"], pairs: [["lundi", "mardi"], ["dimanche", "samedi"]] },
  { lang: "de", kind: "date", sub: "date", frames: ["Was geschah am {x}?", "Was ist am {x} passiert?"], pairs: [["3. Oktober 1990", "3. Oktober 1991"], ["9. November 1989", "10. November 1989"]] },
  { lang: "de", kind: "date", sub: "weekday", frames: ["Hat das Museum am {x} geöffnet?", "Ist das Museum am {x} offen?"], pairs: [["Montag", "Dienstag"], ["Sonntag", "Samstag"]] },
  { lang: "es", kind: "date", sub: "date", frames: ["¿Qué pasó el {x}?", "¿Qué ocurrió el {x}?"], pairs: [["11 de marzo de 2004", "11 de marzo de 2005"], ["20 de julio de 1969", "21 de julio de 1969"]] },
  { lang: "es", kind: "date", sub: "weekday", frames: ["¿El museo abre el {x}?", "¿Se puede visitar el museo el {x}?"], pairs: [["lunes", "martes"], ["domingo", "sábado"]] },
  { lang: "pt", kind: "date", sub: "date", frames: ["O que aconteceu em {x}?", "Que eventos ocorreram em {x}?"], pairs: [["25 de abril de 1974", "25 de abril de 1975"], ["7 de setembro de 1822", "8 de setembro de 1822"]] },
  { lang: "ru", kind: "date", sub: "date", frames: ["Что произошло {x}?", "Какие события случились {x}?"], pairs: [["12 апреля 1961 года", "12 апреля 1962 года"], ["9 мая 1945 года", "8 мая 1945 года"]] },
  { lang: "ru", kind: "date", sub: "weekday", frames: ["Музей работает {x}?", "Можно ли посетить музей {x}?"], pairs: [["в понедельник", "во вторник"], ["в воскресенье", "в субботу"]] },
  { lang: "zh", kind: "date", sub: "date", frames: ["{x}发生了什么？", "{x}有什么大事？"], pairs: [["1949年10月1日", "1949年10月2日"], ["2008年8月8日", "2008年8月9日"]] },
  { lang: "zh", kind: "date", sub: "weekday", frames: ["博物馆{x}开门吗？", "{x}可以去博物馆吗？"], pairs: [["星期一", "星期二"], ["周日", "周六"]] },
  { lang: "ja", kind: "date", sub: "date", frames: ["{x}に何が起きましたか？", "{x}の出来事を教えてください。"], pairs: [["2011年3月11日", "2011年3月12日"], ["1964年10月10日", "1964年10月11日"]] },
  { lang: "ja", kind: "date", sub: "weekday", frames: ["博物館は{x}に開いていますか？", "{x}に博物館へ行けますか？"], pairs: [["月曜日", "火曜日"], ["日曜日", "土曜日"]] },
];

export const VERSION: Group[] = [
  { lang: "en", kind: "version", sub: "version", frames: ["What is new in {x}?", "Which features were added in {x}?"], pairs: [["Python 3.11", "Python 3.12"], ["Node.js 18", "Node.js 20"], ["v2.1.0", "v2.10.0"], ["Java 17", "Java 21"], ["ES2022", "ES2023"], ["HTTP/2", "HTTP/3"]] },
  { lang: "en", kind: "version", sub: "version", frames: ["How do I upgrade to {x}?", "What are the steps to upgrade to {x}?"], pairs: [["iOS 17", "iOS 18"], ["PostgreSQL 15", "PostgreSQL 16"], ["React 18.2", "React 18.3"]] },
  { lang: "fr", kind: "version", sub: "version", frames: ["Quoi de neuf dans {x} ?", "Quelles nouveautés apporte {x} ?"], pairs: [["Python 3.11", "Python 3.12"], ["Android 13", "Android 14"]] },
  { lang: "de", kind: "version", sub: "version", frames: ["Was ist neu in {x}?", "Welche Neuerungen bringt {x}?"], pairs: [["Python 3.11", "Python 3.12"], ["Windows 10", "Windows 11"]] },
  { lang: "es", kind: "version", sub: "version", frames: ["¿Qué hay de nuevo en {x}?", "¿Qué novedades trae {x}?"], pairs: [["Python 3.11", "Python 3.12"], ["Ubuntu 22.04", "Ubuntu 24.04"]] },
  { lang: "pt", kind: "version", sub: "version", frames: ["O que há de novo no {x}?", "Quais são as novidades do {x}?"], pairs: [["Python 3.11", "Python 3.12"], ["Java 8", "Java 11"]] },
  { lang: "ru", kind: "version", sub: "version", frames: ["Что нового в {x}?", "Какие новшества появились в {x}?"], pairs: [["Python 3.11", "Python 3.12"], ["Debian 11", "Debian 12"]] },
  { lang: "zh", kind: "version", sub: "version", frames: ["{x}有什么新功能？", "{x}新增了哪些特性？"], pairs: [["Python 3.11", "Python 3.12"], ["iOS 17", "iOS 18"]] },
  { lang: "ja", kind: "version", sub: "version", frames: ["{x}の新機能は何ですか？", "{x}で追加された機能を教えてください。"], pairs: [["Python 3.11", "Python 3.12"], ["Vue 2", "Vue 3"]] },
];

export const NAME: Group[] = [
  { lang: "en", kind: "name", sub: "Latin", frames: ["What is the population of {x}?", "How many people live in {x}?"], pairs: [["Lyon", "Marseille"], ["New York", "New Jersey"], ["Austria", "Australia"]] },
  { lang: "en", kind: "name", sub: "Latin", frames: ["When was {x} born?", "In which year was {x} born?"], pairs: [["Marie Curie", "Pierre Curie"], ["John Adams", "John Quincy Adams"]] },
  { lang: "fr", kind: "name", sub: "Latin", frames: ["Quelle est la population de {x} ?", "Combien d'habitants compte {x} ?"], pairs: [["Lyon", "Lille"], ["Bordeaux", "Toulouse"]] },
  { lang: "de", kind: "name", sub: "Latin", frames: ["Wie viele Einwohner hat {x}?", "Wie groß ist die Einwohnerzahl von {x}?"], pairs: [["Hamburg", "München"], ["Köln", "Bonn"]] },
  { lang: "es", kind: "name", sub: "Latin", frames: ["¿Cuántos habitantes tiene {x}?", "¿Cuál es la población de {x}?"], pairs: [["Sevilla", "Valencia"], ["Bogotá", "Lima"]] },
  { lang: "pt", kind: "name", sub: "Latin", frames: ["Quantos habitantes tem {x}?", "Qual é a população de {x}?"], pairs: [["Lisboa", "Porto"], ["Recife", "Salvador"]] },
  { lang: "ru", kind: "name", sub: "Cyrillic", frames: ["Сколько жителей в городе {x}?", "Какое население у города {x}?"], pairs: [["Москва", "Казань"], ["Новосибирск", "Екатеринбург"]] },
  { lang: "ru", kind: "name", sub: "Cyrillic", frames: ["В каком году родился {x}?", "Когда родился {x}?"], pairs: [["Пушкин", "Толстой"], ["Менделеев", "Ломоносов"]] },
  { lang: "zh", kind: "name", sub: "Han", frames: ["{x}的人口是多少？", "{x}有多少人口？"], pairs: [["北京", "上海"], ["广州", "深圳"]] },
  { lang: "zh", kind: "name", sub: "Han", frames: ["{x}是哪一年出生的？", "{x}出生于哪一年？"], pairs: [["李白", "杜甫"], ["孔子", "孟子"]] },
  { lang: "ja", kind: "name", sub: "Han", frames: ["{x}の人口はどのくらいですか？", "{x}には何人住んでいますか？"], pairs: [["東京", "大阪"], ["京都", "奈良"]] },
  { lang: "ja", kind: "name", sub: "katakana", frames: ["{x}の社長は誰ですか？", "{x}の現在の社長を教えてください。"], pairs: [["トヨタ", "ホンダ"], ["ソニー", "パナソニック"]] },
  { lang: "en", kind: "name", sub: "across scripts", frames: ["How do you pronounce {x}?", "What is the right pronunciation of {x}?"], pairs: [["Dvořák", "Janáček"], ["Достоевский", "Толстой"], ["東京", "大阪"], ["Tokyo", "Kyoto"]] },
];
