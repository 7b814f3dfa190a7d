// The console's charts, drawn as inline SVG by Canteen's own code: bars with their values
// written on them (readable without colour), an axis with labels, and a title and description
// for screen readers. Right-to-left pages mirror the horizontal axis.
'use strict';

const CanteenCharts = (() => {
  const ns = 'http://www.w3.org/2000/svg';
  const rtl = document.documentElement.dir === 'rtl';

  /** An SVG element; an attribute whose value is null or undefined is left out. */
  function node(name, attributes = {}, text) {
    const element = document.createElementNS(ns, name);
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== null && value !== undefined) element.setAttribute(key, String(value));
    }
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function frame(width, height, title, description) {
    const svg = node('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', class: 'chart-svg' });
    const id = `chart-${Math.random().toString(36).slice(2)}`;
    svg.setAttribute('aria-labelledby', `${id}-title ${id}-desc`);
    svg.append(node('title', { id: `${id}-title` }, title), node('desc', { id: `${id}-desc` }, description));
    return svg;
  }

  /**
   * Vertical bars: `bars` is `[{label, value, text}]` (`text` is the value as shown). Each bar
   * is a `<g class="bar" data-label data-value>` with its value written above it.
   */
  function columns({ bars, title, description, width = 960, height = 260 }) {
    const svg = frame(width, height, title, description);
    const top = 24;
    const bottom = 28;
    const plot = height - top - bottom;
    const max = Math.max(1, ...bars.map((bar) => bar.value));
    const slot = width / Math.max(1, bars.length);
    const barWidth = Math.max(4, slot * 0.7);
    svg.append(node('line', { x1: 0, x2: width, y1: top + plot, y2: top + plot, class: 'axis' }));
    bars.forEach((bar, index) => {
      const position = rtl ? bars.length - 1 - index : index;
      const x = position * slot + (slot - barWidth) / 2;
      const barHeight = Math.round((bar.value / max) * plot);
      const group = node('g', { class: 'bar', 'data-label': bar.label, 'data-value': bar.value });
      group.append(node('title', {}, `${bar.label}: ${bar.text}`));
      group.append(node('rect', { x, y: top + plot - barHeight, width: barWidth, height: Math.max(barHeight, 1),
        class: bar.value > 0 ? 'bar-fill' : 'bar-empty' }));
      if (bar.value > 0) {
        group.append(node('text', { x: x + barWidth / 2, y: top + plot - barHeight - 5, 'text-anchor': 'middle',
          class: 'bar-value' }, bar.text));
      }
      group.append(node('text', { x: x + barWidth / 2, y: height - 8, 'text-anchor': 'middle', class: 'bar-label' },
        bar.label));
      svg.append(group);
    });
    return svg;
  }

  /**
   * Horizontal bars in groups: `groups` is `[{label, bars: [{key, name, value, text}]}]`; each
   * kind of bar has its own pattern (solid, hatched, outlined) and its name written beside it.
   */
  function rows({ groups, title, description, width = 960 }) {
    const barHeight = 18;
    const gap = 4;
    const groupGap = 18;
    const labelWidth = 140;
    const kinds = [...new Set(groups.flatMap((group) => group.bars.map((bar) => bar.key)))];
    const height = groups.reduce((sum, group) => sum + group.bars.length * (barHeight + gap) + groupGap, 10);
    const svg = frame(width, height, title, description);
    const defs = node('defs');
    const hatch = node('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse',
      patternTransform: 'rotate(45)' });
    hatch.append(node('rect', { width: 6, height: 6, class: 'hatch-bg' }), node('line', { x1: 0, y1: 0, x2: 0, y2: 6,
      class: 'hatch-line' }));
    defs.append(hatch);
    svg.append(defs);
    const max = Math.max(1, ...groups.flatMap((group) => group.bars.map((bar) => bar.value)));
    const plot = width - labelWidth - 190;
    let y = 6;
    for (const group of groups) {
      const g = node('g', { class: 'bar-group', 'data-label': group.label });
      const labelX = rtl ? width - 4 : 4;
      g.append(node('text', { x: labelX, y: y + barHeight - 4, 'text-anchor': rtl ? 'end' : 'start',
        class: 'group-label' }, group.label));
      group.bars.forEach((bar) => {
        const length = Math.max(1, Math.round((bar.value / max) * plot));
        const start = rtl ? width - labelWidth - length : labelWidth;
        const style = ['bar-solid', 'bar-hatched', 'bar-outline'][kinds.indexOf(bar.key) % 3];
        const item = node('g', { class: 'bar', 'data-key': bar.key, 'data-value': bar.value });
        item.append(node('title', {}, `${group.label} ${bar.name}: ${bar.text}`));
        item.append(node('rect', { x: start, y, width: length, height: barHeight, class: style,
          fill: style === 'bar-hatched' ? 'url(#hatch)' : null }));
        const textX = rtl ? start - 6 : start + length + 6;
        item.append(node('text', { x: textX, y: y + barHeight - 4, 'text-anchor': rtl ? 'end' : 'start',
          class: 'bar-value' }, `${bar.name} ${bar.text}`));
        g.append(item);
        y += barHeight + gap;
      });
      svg.append(g);
      y += groupGap;
    }
    return svg;
  }

  return { columns, rows };
})();
