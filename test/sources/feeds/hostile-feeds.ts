/** Hostile and oversized feed documents, built in code so the repository holds no 10 MB file. */

export const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0">
  <channel>
    <title>Laughs &lol9;</title>
    <item><title>Item &lol9;</title><guid>laugh-1</guid><description>&lol9;</description></item>
  </channel>
</rss>`;

export const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE rss [ <!ENTITY secret SYSTEM "file:///etc/passwd"> <!ENTITY remote SYSTEM "http://127.0.0.1:9/x.dtd"> ]>
<rss version="2.0"><channel><title>XXE</title>
<item><title>Leak: &secret;</title><guid>xxe-1</guid><description>&remote;</description></item>
</channel></rss>`;

export const SCRIPT_ITEM = `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Scripts</title><link>https://news.example/</link>
<item>
  <title><![CDATA[Breaking <script>alert("title")</script>news]]></title>
  <link>javascript:alert(1)</link>
  <guid isPermaLink="false">script-1</guid>
  <description><![CDATA[<p>Real text.</p><script>document.cookie = "stolen";</script><style>p { color: red }</style><img src="x" onerror="alert(2)"><p>More text.</p>]]></description>
  <pubDate>not a date at all</pubDate>
</item>
<item>
  <title>Relative</title>
  <link>/articles/2</link>
  <description>&lt;b&gt;bold&lt;/b&gt; and &amp;amp; entity</description>
  <pubDate>Tue, 03 Jun 2025 09:30:00 +0100</pubDate>
</item>
</channel></rss>`;

/** One item whose description is `bytes` long. */
export function hugeItemFeed(bytes: number): string {
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Huge</title>
<item><title>Huge item</title><guid>huge-1</guid><description><![CDATA[<p>${"word ".repeat(Math.ceil(bytes / 5))}</p>]]></description></item>
<item><title>Small item</title><guid>small-1</guid><description>short</description></item>
</channel></rss>`;
}

export function manyItemsFeed(count: number): string {
  const items = Array.from(
    { length: count },
    (_, index) => `<item><title>Item ${index}</title><guid>item-${index}</guid></item>`,
  ).join("");
  return `<rss version="2.0"><channel><title>Many</title>${items}</channel></rss>`;
}

export function deeplyNestedFeed(depth: number): string {
  return `<rss version="2.0"><channel><title>Deep</title><item><title>t</title><description>${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</description></item></channel></rss>`;
}

/** A syntactically fine RSS feed for sync tests; `items` are [guid, title, pubDate]. */
export function rssFeed(title: string, items: Array<[string, string, string]>): string {
  const body = items
    .map(
      ([guid, itemTitle, date]) =>
        `<item><title>${itemTitle}</title><link>https://news.example/${guid}</link><guid isPermaLink="false">${guid}</guid><description>About ${itemTitle}</description><pubDate>${date}</pubDate></item>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>${title}</title><link>https://news.example/</link>\n${body}\n</channel></rss>`;
}
