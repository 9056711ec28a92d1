// Place names in Korean, Arabic and Hebrew for the literal guard (docs/semantic-cache.md "Literal
// guard"): these scripts have no capitals, so a name is known only from a list. A data file: one
// place a line, its id, then its Korean, Arabic and Hebrew forms ("," between forms, "-" for none).

/** Left out where the name is also a common word: Korean 수단 (means), 빈 (empty), 가자 (let's go),
 * 동경 (longing), 오만 (arrogance); Arabic جدة (grandmother), المدينة (the city); Hebrew מכה (a
 * blow), חלב (milk), בצרה (in trouble). */
const PLACES = `
france 프랑스 | فرنسا | צרפת
italy 이탈리아,이태리 | إيطاليا | איטליה
germany 독일 | ألمانيا | גרמניה
spain 스페인 | إسبانيا | ספרד
portugal 포르투갈 | البرتغال | פורטוגל
britain 영국 | بريطانيا,المملكة المتحدة | בריטניה
england 잉글랜드 | إنجلترا,انكلترا | אנגליה
usa 미국 | أمريكا,أميركا,الولايات المتحدة | אמריקה,ארצות הברית,ארה"ב
canada 캐나다 | كندا | קנדה
mexico 멕시코 | المكسيك | מקסיקו
brazil 브라질 | البرازيل | ברזיל
argentina 아르헨티나 | الأرجنتين | ארגנטינה
russia 러시아 | روسيا | רוסיה
ukraine 우크라이나 | أوكرانيا | אוקראינה
poland 폴란드 | بولندا | פולין
netherlands 네덜란드 | هولندا | הולנד
belgium 벨기에 | بلجيكا | בלגיה
switzerland 스위스 | سويسرا | שווייץ,שוויץ
austria 오스트리아 | النمسا | אוסטריה
sweden 스웨덴 | السويد | שוודיה
norway 노르웨이 | النرويج | נורווגיה
denmark 덴마크 | الدنمارك | דנמרק
finland 핀란드 | فنلندا | פינלנד
ireland 아일랜드 | أيرلندا | אירלנד
greece 그리스 | اليونان | יוון
turkey 튀르키예,터키 | تركيا | טורקיה
czechia 체코 | التشيك | צ'כיה
hungary 헝가리 | المجر | הונגריה
romania 루마니아 | رومانيا | רומניה
egypt 이집트 | مصر | מצרים
saudi 사우디아라비아,사우디 | السعودية | סעודיה,ערב הסעודית
emirates 아랍에미리트 | الإمارات | האמירויות
qatar 카타르 | قطر | קטאר
kuwait 쿠웨이트 | الكويت | כווית
yemen 예멘 | اليمن | תימן
oman - | عمان | עומאן
iran 이란 | إيران | איראן
iraq 이라크 | العراق | עיראק
syria 시리아 | سوريا | סוריה
lebanon 레바논 | لبنان | לבנון
jordan 요르단 | الأردن | ירדן
israel 이스라엘 | إسرائيل | ישראל
palestine 팔레스타인 | فلسطين | פלסטין
morocco 모로코 | المغرب | מרוקו
algeria 알제리 | الجزائر | אלג'יריה
tunisia 튀니지 | تونس | תוניסיה
libya 리비아 | ليبيا | לוב
sudan - | السودان | סודן
nigeria 나이지리아 | نيجيريا | ניגריה
kenya 케냐 | كينيا | קניה
ethiopia 에티오피아 | إثيوبيا | אתיופיה
southafrica 남아프리카공화국,남아공 | جنوب أفريقيا,جنوب افريقيا | דרום אפריקה
india 인도 | الهند | הודו
pakistan 파키스탄 | باكستان | פקיסטן
afghanistan 아프가니스탄 | أفغانستان | אפגניסטן
china 중국 | الصين | סין
japan 일본 | اليابان | יפן
korea 한국,대한민국,남한 | كوريا,كوريا الجنوبية | קוריאה,דרום קוריאה
northkorea 북한 | كوريا الشمالية | צפון קוריאה
taiwan 대만,타이완 | تايوان | טייוואן
mongolia 몽골 | منغوليا | מונגוליה
vietnam 베트남 | فيتنام | וייטנאם,ויטנאם
thailand 태국 | تايلاند | תאילנד
malaysia 말레이시아 | ماليزيا | מלזיה
singapore 싱가포르 | سنغافورة | סינגפור
indonesia 인도네시아 | إندونيسيا | אינדונזיה
philippines 필리핀 | الفلبين | הפיליפינים
australia 호주,오스트레일리아 | أستراليا | אוסטרליה
newzealand 뉴질랜드 | نيوزيلندا | ניו זילנד
chile 칠레 | تشيلي | צ'ילה
colombia 콜롬비아 | كولومبيا | קולומביה
peru 페루 | بيرو | פרו
cuba 쿠바 | كوبا | קובה
paris 파리 | باريس | פריז,פריס
london 런던 | لندن | לונדון
rome 로마 | روما | רומא
berlin 베를린 | برلين | ברלין
madrid 마드리드 | مدريد | מדריד
barcelona 바르셀로나 | برشلونة | ברצלונה
lisbon 리스본 | لشبونة | ליסבון
moscow 모스크바 | موسكو | מוסקבה
kyiv 키이우,키예프 | كييف | קייב
warsaw 바르샤바 | وارسو | ורשה
vienna 비엔나 | فيينا | וינה
amsterdam 암스테르담 | أمستردام | אמסטרדם
brussels 브뤼셀 | بروكسل | בריסל
athens 아테네 | أثينا | אתונה
prague 프라하 | براغ | פראג
budapest 부다페스트 | بودابست | בודפשט
munich 뮌헨 | ميونخ | מינכן
hamburg 함부르크 | هامبورغ | המבורג
milan 밀라노 | ميلانو | מילאנו
geneva 제네바 | جنيف | ז'נבה
zurich 취리히 | زيورخ | ציריך
stockholm 스톡홀름 | ستوكهولم | שטוקהולם
oslo 오슬로 | أوسلو | אוסלו
copenhagen 코펜하겐 | كوبنهاغن | קופנהגן
dublin 더블린 | دبلن | דבלין
istanbul 이스탄불 | إسطنبول,اسطنبول | איסטנבול
ankara 앙카라 | أنقرة | אנקרה
cairo 카이로 | القاهرة | קהיר
alexandria 알렉산드리아 | الإسكندرية | אלכסנדריה
riyadh 리야드 | الرياض | ריאד
mecca 메카 | مكة | -
dubai 두바이 | دبي | דובאי
abudhabi 아부다비 | أبوظبي,أبو ظبي | אבו דאבי
doha 도하 | الدوحة | דוחא
tehran 테헤란 | طهران | טהרן
baghdad 바그다드 | بغداد | בגדאד
damascus 다마스쿠스 | دمشق | דמשק
aleppo 알레포 | حلب | -
beirut 베이루트 | بيروت | ביירות
jerusalem 예루살렘 | القدس | ירושלים
telaviv 텔아비브 | تل أبيب | תל אביב
haifa 하이파 | حيفا | חיפה
eilat 에일라트 | إيلات | אילת
gaza - | غزة | עזה
casablanca 카사블랑카 | الدار البيضاء | קזבלנקה
rabat 라바트 | الرباط | רבאט
khartoum 하르툼 | الخرطوم | חרטום
nairobi 나이로비 | نيروبي | ניירובי
lagos 라고스 | لاغوس | לאגוס
karachi 카라치 | كراتشي | קראצ'י
kabul 카불 | كابول | קאבול
delhi 델리,뉴델리 | دلهي,نيودلهي | דלהי,ניו דלהי
mumbai 뭄바이 | مومباي | מומבאי
beijing 베이징,북경 | بكين | בייג'ינג
shanghai 상하이 | شنغهاي | שנגחאי
hongkong 홍콩 | هونغ كونغ | הונג קונג
tokyo 도쿄 | طوكيو | טוקיו
osaka 오사카 | أوساكا | אוסקה
kyoto 교토 | كيوتو | קיוטו
seoul 서울 | سيول,سول | סיאול
busan 부산 | بوسان | בוסאן
incheon 인천 | إنتشون | אינצ'און
daegu 대구 | - | -
gwangju 광주 | - | -
jeju 제주,제주도 | جيجو | ג'ג'ו
pyongyang 평양 | بيونغ يانغ | פיונגיאנג
bangkok 방콕 | بانكوك | בנגקוק
hanoi 하노이 | هانوي | האנוי
jakarta 자카르타 | جاكرتا | ג'קרטה
manila 마닐라 | مانيلا | מנילה
sydney 시드니 | سيدني | סידני
melbourne 멜버른 | ملبورن | מלבורן
newyork 뉴욕 | نيويورك,نيو يورك | ניו יורק
losangeles 로스앤젤레스 | لوس أنجلوس | לוס אנג'לס
sanfrancisco 샌프란시스코 | سان فرانسيسكو | סן פרנסיסקו
chicago 시카고 | شيكاغو | שיקגו
washington 워싱턴 | واشنطن | וושינגטון
toronto 토론토 | تورونتو | טורונטו
ottawa 오타와 | أوتاوا | אוטווה
saopaulo 상파울루 | ساو باولو | סאו פאולו
buenosaires 부에노스아이레스 | بوينس آيرس | בואנוס איירס
`;

/** Well-known people, as often asked about ("When was Einstein born?"), in the same columns. Left
 * out: Arabic ماسك (holding), كوري (Korean) for Curie; Hebrew מסי (taxes of) for Messi. */
const PEOPLE = `
einstein 아인슈타인 | أينشتاين,آينشتاين | איינשטיין
newton 뉴턴 | نيوتن | ניוטון
darwin 다윈 | داروين | דרווין
curie 퀴리 | - | קירי
galileo 갈릴레이,갈릴레오 | غاليليو | גלילאו
edison 에디슨 | إديسون | אדיסון
tesla 테슬라 | تسلا,تيسلا | טסלה
shakespeare 셰익스피어 | شكسبير | שייקספיר
mozart 모차르트 | موتسارت,موزارت | מוצרט
beethoven 베토벤 | بيتهوفن | בטהובן
picasso 피카소 | بيكاسو | פיקאסו
napoleon 나폴레옹 | نابليون | נפוליאון
lincoln 링컨 | لينكولن | לינקולן
gandhi 간디 | غاندي | גנדי
mandela 만델라 | مانديلا | מנדלה
churchill 처칠 | تشرشل | צ'רצ'יל
marx 마르크스 | ماركس | מרקס
freud 프로이트 | فرويد | פרויד
socrates 소크라테스 | سقراط | סוקרטס
plato 플라톤 | أفلاطون | אפלטון
aristotle 아리스토텔레스 | أرسطو | אריסטו
confucius 공자 | كونفوشيوس | קונפוציוס
columbus 콜럼버스 | كولومبوس | קולומבוס
obama 오바마 | أوباما | אובמה
trump 트럼프 | ترامب | טראמפ
putin 푸틴 | بوتين | פוטין
jobs 스티브 잡스 | ستيف جوبز | סטיב ג'ובס
gates 빌 게이츠 | بيل غيتس | ביל גייטס
messi 메시 | ميسي | -
ronaldo 호날두 | رونالدو | רונאלדו
sejong 세종대왕,세종 | - | -
yisunsin 이순신 | - | -
ibnsina - | ابن سينا | אבן סינא
herzl - | هرتزل | הרצל
bengurion - | بن غوريون | בן גוריון
`;

/** Every form as written, by script, with its place or person id. */
export const PLACE_FORMS: { ko: [string, string][]; ar: [string, string][]; he: [string, string][] } = { ko: [], ar: [], he: [] };
for (const line of `${PLACES}\n${PEOPLE}`.split("\n")) {
  const at = line.indexOf(" ");
  if (at < 0) continue;
  const id = line.slice(0, at);
  const [ko = "", ar = "", he = ""] = line.slice(at + 1).split("|").map((s) => s.trim());
  const forms = (s: string): string[] => (s === "-" ? [] : s.split(","));
  for (const f of forms(ko)) PLACE_FORMS.ko.push([f, id]);
  for (const f of forms(ar)) PLACE_FORMS.ar.push([f, id]);
  for (const f of forms(he)) PLACE_FORMS.he.push([f, id]);
}

/** Places as German (and English) write them, lowercased. In German text every noun is capitalised,
 * so a capitalised word in one question only is a name change only when it is one of these (not
 * Island, Iceland and an English word, nor Essen, also "food"). */
export const LATIN_PLACES: ReadonlySet<string> = new Set(
  `deutschland österreich schweiz frankreich italien spanien portugal england großbritannien irland schottland
  niederlande holland belgien luxemburg dänemark schweden norwegen finnland polen tschechien ungarn
  rumänien bulgarien griechenland türkei russland ukraine kroatien serbien slowenien slowakei china japan korea
  indien amerika usa kanada mexiko brasilien argentinien australien ägypten marokko israel iran irak
  berlin hamburg münchen köln frankfurt stuttgart düsseldorf dortmund leipzig bremen dresden hannover
  nürnberg duisburg bochum wuppertal bielefeld bonn münster karlsruhe mannheim augsburg wiesbaden kiel
  freiburg heidelberg potsdam rostock mainz lübeck erfurt magdeburg regensburg würzburg ulm aachen
  wien graz linz salzburg innsbruck zürich genf basel bern lausanne luzern
  paris london rom mailand madrid barcelona lissabon amsterdam brüssel prag warschau moskau athen istanbul
  kopenhagen stockholm oslo helsinki dublin budapest peking tokio washington chicago sydney kairo`
    .split(/\s+/)
    .filter((w) => w !== ""),
);

/** Places in Chinese (simplified and traditional) and Japanese, Han or katakana, with the same ids.
 * Han has no spaces: the longest name from each position wins (罗马尼亚 before 罗马, 印度尼西亚
 * before 印度, 北京 before 京都 in 北京都). */
const CJK_PLACES = `
china 中国 中國 | japan 日本 | usa 美国 美國 米国 アメリカ | britain 英国 英國 イギリス | france 法国 法國 フランス
germany 德国 德國 ドイツ | italy 意大利 義大利 イタリア | russia 俄罗斯 俄羅斯 ロシア | korea 韩国 韓國 韓国 | northkorea 朝鲜 朝鮮 北朝鮮
india 印度 インド | canada 加拿大 カナダ | australia 澳大利亚 澳洲 オーストラリア | brazil 巴西 ブラジル | mexico 墨西哥 メキシコ
spain 西班牙 スペイン | portugal 葡萄牙 ポルトガル | netherlands 荷兰 荷蘭 オランダ | switzerland 瑞士 スイス | sweden 瑞典 スウェーデン
norway 挪威 ノルウェー | denmark 丹麦 丹麥 デンマーク | finland 芬兰 芬蘭 フィンランド | greece 希腊 希臘 ギリシャ | turkey 土耳其 トルコ
egypt 埃及 エジプト | thailand 泰国 泰國 タイ | vietnam 越南 ベトナム | singapore 新加坡 シンガポール | malaysia 马来西亚 馬來西亞 マレーシア
indonesia 印度尼西亚 印尼 インドネシア | philippines 菲律宾 菲律賓 フィリピン | romania 罗马尼亚 羅馬尼亞 ルーマニア | taiwan 台湾 臺灣 台灣
hongkong 香港 | macau 澳门 澳門 | beijing 北京 ペキン | shanghai 上海 シャンハイ | guangzhou 广州 廣州 | shenzhen 深圳 | tianjin 天津
chongqing 重庆 重慶 | chengdu 成都 | wuhan 武汉 武漢 | hangzhou 杭州 | nanjing 南京 | xian 西安 | suzhou 苏州 蘇州 | taipei 台北 臺北
tokyo 东京 東京 | osaka 大阪 | kyoto 京都 | nara 奈良 | yokohama 横浜 横滨 | nagoya 名古屋 | sapporo 札幌 | fukuoka 福冈 福岡
kobe 神户 神戸 | hiroshima 广岛 広島 | okinawa 冲绳 沖縄 | hokkaido 北海道 | seoul 首尔 首爾 ソウル | busan 釜山 プサン
newyork 纽约 紐約 ニューヨーク | london 伦敦 倫敦 ロンドン | paris 巴黎 パリ | berlin 柏林 ベルリン | rome 罗马 羅馬 ローマ
moscow 莫斯科 モスクワ | sydney 悉尼 雪梨 シドニー | bangkok 曼谷 バンコク
`;

/** Every Chinese and Japanese form with its place id. */
export const CJK_PLACE_FORMS: [string, string][] = CJK_PLACES.split(/[|\n]/).flatMap((entry) => {
  const [id = "", ...forms] = entry.trim().split(/\s+/);
  return id === "" ? [] : forms.map((f): [string, string] => [f, id]);
});
