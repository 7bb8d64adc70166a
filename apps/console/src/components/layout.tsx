import './layout.css';

import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useRouterState } from '@tanstack/react-router';
import { type ReactNode, useState } from 'react';

import { auth, managesOrganization, useMember, useSwitchOrganization } from '../auth/session';
import { Empty, ErrorNotice } from './ui';

interface NavItem {
  to: string;
  label: string;
  adminOnly?: boolean;
}

const NAV: NavItem[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/agents', label: 'Agents' },
  { to: '/connections', label: 'Connections' },
  { to: '/notifications', label: 'Notifications' },
  { to: '/databases', label: 'Databases' },
  { to: '/skills', label: 'Skills' },
  { to: '/members', label: 'Members' },
  { to: '/keys', label: 'API keys', adminOnly: true },
  { to: '/audit', label: 'Audit log', adminOnly: true },
  { to: '/billing', label: 'Billing' },
];

/** The signed-in frame: the organization, the navigation (a menu at phone width) and the page. */
export function Layout({ children }: { children: ReactNode }) {
  const member = useMember();
  const switchOrganization = useSwitchOrganization();
  const navigate = useNavigate();
  const client = useQueryClient();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const [menuOpen, setMenuOpen] = useState(false);
  // Going to another page closes the menu (React's way to reset state when a value changes).
  const [menuPage, setMenuPage] = useState(pathname);
  if (menuPage !== pathname) {
    setMenuPage(pathname);
    setMenuOpen(false);
  }
  const [error, setError] = useState<unknown>(null);

  const signOut = async () => {
    await auth.signOut().catch(() => undefined);
    client.clear();
    await navigate({ to: '/sign-in' });
  };

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <Link to="/" className="brand">
          Flowmesh
        </Link>
        <div className="org">
          <label htmlFor="organization" className="visually-hidden">
            Organization
          </label>
          <select
            id="organization"
            value={member.organization?.id ?? ''}
            onChange={(event) => {
              setError(null);
              switchOrganization(event.target.value)
                .then(() => navigate({ to: '/' }))
                .catch(setError);
            }}
          >
            {member.organization ? null : <option value="">No organization</option>}
            {member.organizations.map((organization) => (
              <option key={organization.id} value={organization.id}>
                {organization.name}
              </option>
            ))}
          </select>
          <span className="muted user" title={member.session.user.email}>
            {member.session.user.email}
            {member.role ? ` · ${member.role}` : ''}
          </span>
          <button type="button" className="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <div className="body">
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
          <ul>
            {NAV.filter((item) => !item.adminOnly || managesOrganization(member.role)).map((item) => (
              <li key={item.to}>
                <Link
                  to={item.to}
                  activeOptions={{ exact: item.to === '/' }}
                  activeProps={{ className: 'active', 'aria-current': 'page' }}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <ErrorNotice error={error} title="Could not switch organization." />
          {member.organization ? (
            children
          ) : (
            <Empty>
              {member.organizations.length > 0
                ? 'Choose an organization above.'
                : 'You are in no organization yet. An owner or admin of one invites you by email: its link lets you join.'}
            </Empty>
          )}
        </main>
      </div>
    </div>
  );
}
