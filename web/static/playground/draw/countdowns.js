// The expiry countdowns of the queue cards. A card is drawn with its
// countdowns filled in (drawQueue); while time plays, only the cards in
// view are brought up to date every frame, and one out of view is when it
// scrolls in (cardWatcher), so that a step with 10,000 messages does not
// rewrite hundreds of countdowns nobody sees.
import { t } from "../../i18n.js";
import { fmtMs } from "../format.js";
import { viewNow } from "../session.js";

export function countdownText(atMs, now) {
  const left = atMs - now;
  return left > 0 ? t("js.countdown.left", { d: fmtMs(left) }) : t("js.countdown.passed", { d: fmtMs(-left) });
}

// drawCountdowns writes the countdowns of one card ({e, at, text}, made by
// drawQueue) whose text changed.
function drawCountdowns(card, now) {
  for (const c of card._countdowns) {
    const text = countdownText(c.at, now);
    if (text !== c.text) c.e.textContent = c.text = text;
  }
}

// drawCountdownsInView moves the countdowns of the cards in view to now.
export function drawCountdownsInView(now) {
  for (const card of cardsInView) drawCountdowns(card, now);
}

// The queue cards with countdowns that are watched, and those of them in
// view. Without IntersectionObserver every watched card counts as in view.
const watchedCards = new Set();
const cardsInView = new Set();
const cardWatcher =
  typeof IntersectionObserver === "function"
    ? new IntersectionObserver((seen) => {
        for (const e of seen) {
          if (!watchedCards.has(e.target)) continue;
          if (!e.isIntersecting) cardsInView.delete(e.target);
          else if (!cardsInView.has(e.target)) {
            cardsInView.add(e.target);
            drawCountdowns(e.target, viewNow());
          }
        }
      })
    : null;

export function watchCard(card) {
  watchedCards.add(card);
  if (cardWatcher) cardWatcher.observe(card);
  else cardsInView.add(card);
}

// forgetGoneCards stops watching the cards a redraw took out of the page.
export function forgetGoneCards() {
  for (const card of watchedCards) {
    if (card.isConnected) continue;
    watchedCards.delete(card);
    cardsInView.delete(card);
    cardWatcher?.unobserve(card);
  }
}
